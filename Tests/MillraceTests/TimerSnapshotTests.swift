import Millrace
import Testing

@Suite("Timer snapshots")
struct TimerSnapshotTests {
  @Test("pending timers survive a snapshot and restore into a new runtime")
  func snapshotAndRestore() throws {
    let old = Runtime()
    let oldDriver = ManualDriver(runtime: old)
    let starter = try old.spawn(
      Starter.self, state: [], queues: [.merge, .oldest(max: 1, .suspendNew)])
    for n in 1...3 { _ = starter.post(.start(n)) }
    oldDriver.advance(by: .milliseconds(40))
    let ticker = try old.spawn(Ticker.self, state: 0)
    _ = ticker.post(.start)
    oldDriver.runUntilIdle()
    let saved = starter.timers
    #expect(saved.map(\.deadline) == [.ms(100), nil, nil])
    #expect(saved.map(\.input) == [.done(1), .done(2), .done(3)])
    let savedTicks = ticker.timers
    #expect(savedTicks.count == 1 && savedTicks[0].repeats && savedTicks[0].id == "timer")

    let new = Runtime()
    let driver = ManualDriver(runtime: new)
    driver.advance(to: .ms(40))
    let restored = try new.spawn(
      Starter.self, state: [], queues: [.merge, .oldest(max: 1, .suspendNew)])
    for timer in saved { #expect(new.restore(timer, into: restored)) }
    let ticks = try new.spawn(Ticker.self, state: 0)
    #expect(new.restore(savedTicks[0], into: ticks))
    // Ticks at 70, 100, …, 280 ms (started at 40 ms, period 30 ms).
    driver.advance(to: .ms(300))
    #expect(restored.state == [1, 2, 3])
    #expect(ticks.state == 8)
    _ = ticks.post(.stop)
    driver.advance(by: .seconds(1))
    #expect(ticks.state == 8)
    #expect(new.nextDeadline == nil)
  }
}
