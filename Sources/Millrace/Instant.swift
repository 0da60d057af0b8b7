/// A point on the driver's monotonic clock, in nanoseconds since an arbitrary origin.
///
/// The core never reads a clock: drivers pass the current instant to `Runtime.advance(to:)`.
/// Instants only make sense compared with instants from the same driver.
public struct Instant: Hashable, Comparable, Sendable {
  /// Nanoseconds since the driver's origin.
  public var nanoseconds: UInt64

  /// Creates an instant `nanoseconds` after the driver's origin.
  @inlinable
  public init(nanoseconds: UInt64) {
    self.nanoseconds = nanoseconds
  }

  /// The driver's origin.
  public static let zero = Instant(nanoseconds: 0)

  /// Orders instants by time.
  @inlinable
  public static func < (lhs: Instant, rhs: Instant) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }

  /// The instant `span` later, saturating at the end of time instead of overflowing.
  @inlinable
  public func advanced(by span: TimeSpan) -> Instant {
    if span.nanoseconds <= 0 { return self }
    let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(span.nanoseconds))
    return Instant(nanoseconds: overflow ? .max : sum)
  }

  /// The time from `earlier` to this instant; zero when `earlier` is later.
  @inlinable
  public func since(_ earlier: Instant) -> TimeSpan {
    if earlier.nanoseconds >= nanoseconds { return .zero }
    let difference = nanoseconds - earlier.nanoseconds
    return TimeSpan(nanoseconds: difference > UInt64(Int64.max) ? .max : Int64(difference))
  }
}
