import Millrace
import Testing

@testable import MillraceHost

/// The store's clock rule (DESIGN §4.4): where a stored timer's deadline lands on restore.
@Suite("Host clock")
struct HostClockTests {
  static let second: Int64 = 1_000_000_000
  /// A reading: the runtime at 1,000 s, the wall clock at 2,000,000 s.
  let clock = HostClock(
    monotonic: Instant(nanoseconds: 1_000 * 1_000_000_000), wallNanoseconds: 2_000_000 * second)

  func timer(
    repeats: Bool = false, span: Int64 = 10 * second, wall: Int64?, remaining: Int64? = nil
  ) -> StoredTimer {
    StoredTimer(
      input: "tick", repeats: repeats, spanNanoseconds: span, deadlineWallNanoseconds: wall,
      remainingNanoseconds: remaining, queue: 0, effectID: 0)
  }

  /// `instant` as nanoseconds after (negative: before) the reading.
  func offset(_ instant: Instant?) -> Int64? {
    instant.map { Int64($0.nanoseconds) - Int64(clock.monotonic.nanoseconds) }
  }

  @Test("a deadline still ahead keeps what it has left by the wall clock")
  func ahead() {
    let restored = clock.restoredDeadline(of: timer(wall: clock.wallNanoseconds + 3 * Self.second))
    #expect(offset(restored) == 3 * Self.second)
    // What it had left when stored was more: the wall clock is believed.
    let stored = timer(wall: clock.wallNanoseconds + 3 * Self.second, remaining: 7 * Self.second)
    #expect(offset(clock.restoredDeadline(of: stored)) == 3 * Self.second)
  }

  @Test("a wall clock set back never makes a timer wait longer than it had left when stored")
  func clockSetBack() {
    // Stored with 2 s left; the clock was then set back an hour.
    let stored = timer(
      wall: clock.wallNanoseconds + 3_600 * Self.second, remaining: 2 * Self.second)
    #expect(offset(clock.restoredDeadline(of: stored)) == 2 * Self.second)
    let ticker = timer(
      repeats: true, wall: clock.wallNanoseconds + 3_600 * Self.second, remaining: 0)
    #expect(offset(clock.restoredDeadline(of: ticker)) == 0)
  }

  @Test("an overdue after fires at once")
  func overdueAfter() {
    let stored = timer(wall: clock.wallNanoseconds - 42 * Self.second, remaining: Self.second)
    #expect(offset(clock.restoredDeadline(of: stored)) == 0)
  }

  @Test("an overdue every is put on the last tick of its grid, at most a period back")
  func overdueEvery() {
    // Due 25 s ago with a 10 s period: ticks were due at -25, -15, -5; the next is at +5.
    let stored = timer(repeats: true, wall: clock.wallNanoseconds - 25 * Self.second)
    #expect(offset(clock.restoredDeadline(of: stored)) == -5 * Self.second)
    let onTheGrid = timer(repeats: true, wall: clock.wallNanoseconds - 30 * Self.second)
    #expect(offset(clock.restoredDeadline(of: onTheGrid)) == 0)
  }

  @Test("an overdue every fires once, then on its grid")
  func overdueEveryInTheRuntime() throws {
    enum Ticker: PlainMachine {
      static func resolve(
        _ input: Int, state: inout Int, effects: inout Effects<Self>
      ) -> Resolution {
        state += 1
        return .handled
      }
    }
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    driver.advance(to: clock.monotonic)
    let ticker = try runtime.spawn(Ticker.self, state: 0)
    var ticks: [Int64] = []
    // Unowned: the runtime keeps its observers (a strong capture would be a cycle).
    ticker.observe { [unowned runtime] _ in ticks.append(Int64(runtime.now.nanoseconds)) }
    let stored = timer(repeats: true, wall: clock.wallNanoseconds - 25 * Self.second)
    let snapshot = TimerSnapshot(
      repeats: true, span: .nanoseconds(stored.spanNanoseconds), input: 0,
      deadline: clock.restoredDeadline(of: stored), queue: .default, id: .none)
    #expect(runtime.restore(snapshot, into: ticker))
    driver.advance(by: .seconds(16))
    let start = Int64(clock.monotonic.nanoseconds)
    #expect(ticks.map { ($0 - start) / Self.second } == [0, 5, 15])
  }

  @Test("a timer waiting for its queue has no deadline")
  func waiting() {
    #expect(clock.restoredDeadline(of: timer(wall: nil)) == nil)
  }

  @Test("what it has left is measured on the runtime's clock, never negative")
  func remaining() {
    #expect(clock.remaining(until: clock.monotonic.advanced(by: .seconds(2))) == 2 * Self.second)
    #expect(clock.remaining(until: Instant(nanoseconds: 0)) == 0)
  }
}
