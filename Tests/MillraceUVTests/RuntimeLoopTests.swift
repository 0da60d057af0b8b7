import Millrace
import MillraceUV
import Testing

/// `arm(ms)` starts `after(ms, ring)`; `ring` counts; `work` runs a job yielding `done`;
/// `abort` cancels the job; `spin` sends itself again until its count reaches 0.
enum Bell: PlainMachine {
  enum Input: Equatable, Sendable { case arm(Int64), ring, work, done, abort, spin(Int) }
  static func resolve(
    _ input: Input, state: inout [Input], effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .arm(let ms): effects.after(.milliseconds(ms), send: .ring)
    case .work: effects.run(Job { [.done] }, id: "job")
    case .abort: effects.cancel("job")
    case .spin(let left) where left > 0: effects.send(.spin(left - 1))
    default: break
    }
    state.append(input)
    return .handled
  }
}

@Suite("RuntimeLoop")
struct RuntimeLoopTests {
  @Test("timer effects fire on real time, in deadline order, never early")
  func timersOnRealTime() throws {
    let loop = try EventLoop()
    let runtime = Runtime()
    let driver = RuntimeLoop(loop: loop, runtime: runtime)
    let bell = try runtime.spawn(Bell.self, state: [])
    var rings: [Double] = []
    let start = loop.now
    bell.observe { event in
      guard event.reply?.input == .ring else { return }
      rings.append(millisecondsSince(start, loop: loop))
      if rings.count == 2 { loop.stop() }
    }
    #expect(bell.post(.arm(60)) == .accepted)
    #expect(bell.post(.arm(20)) == .accepted)
    driver.pump()
    runLoop(loop, timeout: 5)
    // Lower bounds only: under a sanitizer, with the other suites running in parallel, the
    // process can be starved for seconds (CI saw 15 s), so an upper bound on real time would
    // test the machine, not the driver. Both rang within `runLoop`'s timeout.
    #expect(rings.count == 2)
    #expect(rings.first.map { $0 >= 20 } == true)
    #expect(rings.last.map { $0 >= 60 } == true)
    driver.close()
    try loop.close()
  }

  @Test("a long run of inputs is dispatched in batches without starving other callbacks")
  func batchesDoNotStarveTheLoop() throws {
    let loop = try EventLoop()
    let runtime = Runtime()
    let driver = RuntimeLoop(loop: loop, runtime: runtime, batchSize: 100)
    let bell = try runtime.spawn(Bell.self, state: [])
    var turnsSeenByTimer: [Int] = []
    let probe = LoopTimer(loop: loop) { _ in
      turnsSeenByTimer.append(bell.statistics.handled > 0 ? Int(bell.statistics.handled) : 0)
    }
    probe.start(afterMilliseconds: 0, repeatMilliseconds: 1)
    var pumps = 0
    driver.onTurnEnd = {
      pumps += 1
      if !runtime.hasPendingInputs && bell.statistics.handled > 0 { loop.stop() }
    }
    _ = bell.post(.spin(20_000))
    runLoop(loop, timeout: 20)
    #expect(bell.statistics.handled == 20_001)
    #expect(pumps > 200)
    #expect(turnsSeenByTimer.contains { $0 > 0 && $0 < 20_001 })
    probe.close()
    driver.close()
    try loop.close()
  }

  @Test("dispatchPosted resolves what was posted, in batches, and leaves the turn end to pump")
  func dispatchPostedDoesNotEndTheTurn() throws {
    let loop = try EventLoop()
    let runtime = Runtime()
    let driver = RuntimeLoop(loop: loop, runtime: runtime, batchSize: 3)
    let bell = try runtime.spawn(Bell.self, state: [])
    var turnEnds = 0
    driver.onTurnEnd = { turnEnds += 1 }
    var inDispatch: [UInt32] = []
    // Cancelled at the end: the observer holds the driver and the handle, which hold the
    // runtime that holds the observer.
    let observation = bell.observe { event in
      guard event.reply?.input == .ring else { return }
      // Asked during a dispatch: nothing more is dispatched (no re-entry).
      let before = bell.statistics.handled
      driver.dispatchPosted()
      inDispatch.append(bell.statistics.handled - before)
    }
    for _ in 0..<5 { #expect(bell.post(.ring) == .accepted) }
    driver.dispatchPosted()
    #expect(bell.statistics.handled == 3)  // one batch
    #expect(turnEnds == 0)
    driver.dispatchPosted()
    #expect(bell.statistics.handled == 5)
    #expect(inDispatch == [0, 0, 0, 0, 0])
    driver.dispatchPosted()  // nothing queued
    #expect(turnEnds == 0)
    driver.pump()
    #expect(turnEnds == 1)
    driver.close()
    driver.dispatchPosted()  // closed: nothing, and no crash
    #expect(bell.post(.ring) == .accepted)
    driver.dispatchPosted()
    #expect(bell.statistics.handled == 5)
    #expect(observation?.cancel() == true)
    try loop.close()
  }

  @Test("jobs run on the thread pool; a cancelled job's completion is discarded")
  func jobsOnThePool() throws {
    let loop = try EventLoop()
    let runtime = Runtime()
    let driver = RuntimeLoop(loop: loop, runtime: runtime)
    let bell = try runtime.spawn(Bell.self, state: [])
    let aborted = try runtime.spawn(Bell.self, state: [])
    bell.observe { event in if event.reply?.input == .done { loop.stop() } }
    _ = aborted.post(.work)
    _ = aborted.post(.abort)
    _ = bell.post(.work)
    driver.pump()
    runLoop(loop, timeout: 5)
    #expect(bell.state == [.work, .done])
    // Give the aborted job's completion a chance to arrive, then check it was dropped.
    let settle = LoopTimer(loop: loop) { _ in loop.stop() }
    settle.start(afterMilliseconds: 50)
    runLoop(loop, timeout: 5)
    #expect(aborted.state == [.work, .abort])
    #expect(runtime.statistics.effectsCancelled == 1)  // only `aborted` cancels
    settle.close()
    driver.close()
    try loop.close()
  }
}
