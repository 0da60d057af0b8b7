/// A length of time in whole nanoseconds, used for `after` and `every` effects.
///
/// `TimeSpan` is a plain 64-bit count so that arming a timer never does 128-bit arithmetic;
/// `Swift.Duration` converts with `init(_:)`. Negative spans behave as zero.
public struct TimeSpan: Hashable, Comparable, Sendable {
  /// The length in nanoseconds.
  public var nanoseconds: Int64

  /// Creates a span of `nanoseconds`.
  @inlinable
  public init(nanoseconds: Int64) {
    self.nanoseconds = nanoseconds
  }

  /// Converts a `Swift.Duration`, truncating below a nanosecond and saturating beyond 292 years.
  public init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow {
      self.nanoseconds = seconds < 0 ? .min : .max
    } else {
      let (sum, overflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
      self.nanoseconds = overflow ? (seconds < 0 ? .min : .max) : sum
    }
  }

  /// No time at all.
  public static let zero = TimeSpan(nanoseconds: 0)

  /// A span of `value` nanoseconds.
  @inlinable
  public static func nanoseconds(_ value: Int64) -> TimeSpan {
    TimeSpan(nanoseconds: value)
  }

  /// A span of `value` microseconds, saturating on overflow.
  @inlinable
  public static func microseconds(_ value: Int64) -> TimeSpan {
    _scaled(value, by: 1_000)
  }

  /// A span of `value` milliseconds, saturating on overflow.
  @inlinable
  public static func milliseconds(_ value: Int64) -> TimeSpan {
    _scaled(value, by: 1_000_000)
  }

  /// A span of `value` seconds, saturating on overflow.
  @inlinable
  public static func seconds(_ value: Int64) -> TimeSpan {
    _scaled(value, by: 1_000_000_000)
  }

  /// A span of `value` minutes, saturating on overflow.
  @inlinable
  public static func minutes(_ value: Int64) -> TimeSpan {
    _scaled(value, by: 60_000_000_000)
  }

  @inlinable
  static func _scaled(_ value: Int64, by unit: Int64) -> TimeSpan {
    let (product, overflow) = value.multipliedReportingOverflow(by: unit)
    return TimeSpan(nanoseconds: overflow ? (value < 0 ? .min : .max) : product)
  }

  /// Orders spans by length.
  @inlinable
  public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }
}
