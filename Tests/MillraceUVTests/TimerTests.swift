import MillraceUV
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Timers and signals on a real loop", .serialized)
struct TimerTests {
  @Test func oneShotTimersFireInDeadlineOrderOnRealTime() throws {
    let loop = try EventLoop()
    let start = loop.now
    var fired: [(Int, Double)] = []
    var timers: [LoopTimer] = []
    for delay in [60, 20, 40] {
      let timer = LoopTimer(loop: loop) { _ in
        fired.append((delay, millisecondsSince(start, loop: loop)))
        if fired.count == 3 { loop.stop() }
      }
      timer.start(after: .milliseconds(delay))
      timers.append(timer)
    }
    runLoop(loop)
    #expect(fired.map(\.0) == [20, 40, 60])
    // No upper bound: a process starved by parallel suites under a sanitizer can be seconds
    // late through no fault of the timer; that all three fired is checked above.
    for (delay, elapsed) in fired {
      #expect(elapsed >= Double(delay) - 1, "timer \(delay) ms fired early at \(elapsed) ms")
    }
    #expect(timers.allSatisfy { !$0.isActive })
    try closeWithin(loop)
  }

  @Test func periodicTimerTicksUntilStopped() throws {
    let loop = try EventLoop()
    let start = loop.now
    var ticks = 0
    let periodic = LoopTimer(loop: loop) { timer in
      ticks += 1
      if ticks == 5 {
        timer.stop()
        // Give a wrongly still-running timer the chance to tick again before stopping.
        let settle = LoopTimer(loop: loop) { _ in loop.stop() }
        settle.start(after: .milliseconds(50))
      }
    }
    periodic.start(after: .milliseconds(10), repeat: .milliseconds(10))
    runLoop(loop)
    #expect(ticks == 5)
    #expect(millisecondsSince(start, loop: loop) >= 50)
    #expect(!periodic.isActive)
    try closeWithin(loop)
  }

  @Test func restartingAndStoppingRearmTheSameTimer() throws {
    let loop = try EventLoop()
    let start = loop.now
    var fires: [Double] = []
    let timer = LoopTimer(loop: loop) { _ in fires.append(millisecondsSince(start, loop: loop)) }
    let cancelled = LoopTimer(loop: loop) { _ in Issue.record("a stopped timer fired") }
    cancelled.start(after: .milliseconds(20))
    cancelled.stop()
    timer.start(after: .seconds(5))
    timer.start(after: .milliseconds(20))  // re-arm replaces the 5 s deadline
    let end = LoopTimer(loop: loop) { _ in loop.stop() }
    end.start(after: .milliseconds(150))
    runLoop(loop)
    #expect(fires.count == 1)
    // Fired once, not early, and long before the replaced 5 s deadline (it ran before `end`).
    #expect((fires.first ?? 0) >= 19)
    try closeWithin(loop)
  }

  @Test func deferredTasksRunInOrderBeforeTheLoopBlocks() throws {
    let loop = try EventLoop()
    var order: [Int] = []
    loop.execute {
      order.append(1)
      loop.execute {
        order.append(3)
        loop.stop()
      }
    }
    loop.execute { order.append(2) }
    runLoop(loop, timeout: 5)
    #expect(order == [1, 2, 3])
    try closeWithin(loop)
  }

  @Test func signalWatcherDeliversSIGHUPOnTheLoop() throws {
    let loop = try EventLoop()
    var received: [SignalWatcher.Signal] = []
    let watcher = try SignalWatcher(loop: loop, signal: .hangup) { signal in
      received.append(signal)
      loop.stop()
    }
    let sender = LoopTimer(loop: loop) { _ in kill(getpid(), SIGHUP) }
    sender.start(after: .milliseconds(10))
    runLoop(loop, timeout: 10)
    #expect(received == [.hangup])
    watcher.close()
    try closeWithin(loop)
  }
}
