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

  /// The runtime instant of a wall-clock time; a time already past maps to now.
  public func instant(wall: Int64) -> Instant {
    let delta = wall &- wallNanoseconds
    return delta <= 0 ? monotonic : monotonic.advanced(by: .nanoseconds(delta))
  }
}
