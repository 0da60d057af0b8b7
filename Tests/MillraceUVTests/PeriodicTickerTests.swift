import CLibUV
import Testing

@testable import MillraceUV

#if canImport(Glibc)
  import Glibc
#endif

/// `PeriodicTicker`: ticks from a kernel timer, in real time (what is tested is the loop's own
/// wake-up with nothing else on it), bounded; and the loop's waits keep no timeout for it.
@Suite("Periodic ticker")
struct PeriodicTickerTests {
  @Test("the loop's wait has no timeout for a ticker, as it has for a repeating LoopTimer")
  func noTimeoutOnTheLoopsWait() throws {
    let loop = try EventLoop()
    let ticker = PeriodicTicker(loop: loop, interval: .milliseconds(50)) {}
    #expect(ticker.isKernelTimed)
    // Once the loop ran (a first iteration does not wait at all).
    _ = loop.runOnce(blocking: false)
    #expect(uv_backend_timeout(loop.raw) == -1)
    let timer = LoopTimer(loop: loop) { _ in }
    timer.start(after: .milliseconds(50), repeat: .milliseconds(50))
    #expect(uv_backend_timeout(loop.raw) > 0)
    timer.close()
    ticker.close()
    try loop.close()
  }

  @Test(
    "ticks every interval on an idle loop, never early, and not after close()",
    arguments: [true, false])
  func ticksOnAnIdleLoop(kernelTimed: Bool) throws {
    for _ in 0..<3 {
      let loop = try EventLoop()
      let start = loop.now
      var ticks: [UInt64] = []
      var ticker: PeriodicTicker?
      ticker = PeriodicTicker(loop: loop, interval: .milliseconds(20), kernelTimed: kernelTimed) {
        ticks.append(loop.now)
        if ticks.count == 5 {
          ticker?.close()
          loop.stop()
        }
      }
      // The loop has nothing else to wake it: no timer, no I/O (the watchdog of `runLoop` is
      // seconds away).
      runLoop(loop, timeout: 5)
      try #require(ticks.count == 5)
      #expect(ticker?.isKernelTimed == kernelTimed)
      for (index, tick) in ticks.enumerated() {
        #expect(tick - start >= UInt64(index + 1) * 20_000_000, "tick \(index) early")
      }
      // Closed at the fifth tick: nothing more in the next few intervals.
      let after = LoopTimer(loop: loop) { _ in loop.stop() }
      after.start(after: .milliseconds(70))
      runLoop(loop, timeout: 5)
      #expect(ticks.count == 5)
      after.close()
      try loop.close()
    }
  }

  @Test("intervals missed while the loop was busy come as one call")
  func missedTicksCoalesce() throws {
    let loop = try EventLoop()
    var calls = 0
    let ticker = PeriodicTicker(loop: loop, interval: .milliseconds(10)) {
      calls += 1
      if calls == 1 { usleep(65_000) }  // six more intervals end meanwhile
    }
    let stop = LoopTimer(loop: loop) { _ in loop.stop() }
    stop.start(after: .milliseconds(80))
    runLoop(loop, timeout: 5)
    // The first call, one for the six missed, and at most one more before the stop.
    #expect(calls >= 2 && calls <= 3, "calls: \(calls)")
    stop.close()
    ticker.close()
    try loop.close()
  }
}
