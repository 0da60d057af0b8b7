import Millrace

/// Converts between the runtime's monotonic instants and the wall clock used in the store,
/// from one pair of readings taken together.
public struct HostClock: Sendable {
  /// The runtime's instant at the reading.
  public var monotonic: Instant
  /// Nanoseconds since the Unix epoch at the reading.
  public var wallNanoseconds: Int64

  /// Creates a clock from a pair of readings.
  public init(monotonic: Instant, wallNanoseconds: Int64) {
    self.monotonic = monotonic
    self.wallNanoseconds = wallNanoseconds
  }

  /// The wall-clock time of a runtime instant.
  public func wall(_ instant: Instant) -> Int64 {
    let delta =
      instant >= monotonic
      ? Int64(clamping: instant.nanoseconds - monotonic.nanoseconds)
      : -Int64(clamping: monotonic.nanoseconds - instant.nanoseconds)
    return wallNanoseconds &+ delta
  }

  /// How long `instant` is after the reading (0 when it is not).
  public func remaining(until instant: Instant) -> Int64 {
    instant > monotonic ? Int64(clamping: instant.nanoseconds - monotonic.nanoseconds) : 0
  }

  /// The runtime instant a stored timer is restored at (nil for one waiting for its queue),
  /// by the store's clock rule (DESIGN §4.4):
  /// - it never waits longer than it had left when stored (`remainingNanoseconds`), whatever
  ///   the wall clock did meanwhile, nor past its wall-clock deadline;
  /// - an `after` whose deadline passed fires at once;
  /// - an `every` whose deadline passed keeps its phase: it is restored at the last tick of
  ///   its grid (deadline + k · period) not after the reading, so it fires once at once (the
  ///   one catch-up tick) and then on the grid.
  public func restoredDeadline(of timer: StoredTimer) -> Instant? {
    restoredDeadline(
      wall: timer.deadlineWallNanoseconds, remaining: timer.remainingNanoseconds,
      repeats: timer.repeats, span: timer.spanNanoseconds)
  }

  /// `restoredDeadline(of:)` for a timer as the store's row holds it.
  public func restoredDeadline(of timer: StoredTimerView) -> Instant? {
    restoredDeadline(
      wall: timer.deadlineWallNanoseconds, remaining: timer.remainingNanoseconds,
      repeats: timer.repeats, span: timer.spanNanoseconds)
  }

  private func restoredDeadline(wall: Int64?, remaining: Int64?, repeats: Bool, span: Int64)
    -> Instant?
  {
    guard let wall else { return nil }
    var left = wall &- wallNanoseconds
    if let remaining, remaining < left { left = max(0, remaining) }
    if left > 0 { return monotonic.advanced(by: .nanoseconds(left)) }
    guard repeats, span > 0 else { return monotonic }
    let behind = UInt64(left == .min ? 0 : -left % span)
    return behind <= monotonic.nanoseconds
      ? Instant(nanoseconds: monotonic.nanoseconds - behind) : monotonic
  }
}
