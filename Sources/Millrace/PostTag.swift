/// An opaque value a caller attaches to a posted input and gets back with its reply, so that
/// a host can match replies to requests without searching.
public struct PostTag: Hashable, Sendable {
  /// The caller's value; 0 means "untagged".
  public var rawValue: UInt64

  /// Creates a tag.
  @inlinable
  public init(_ rawValue: UInt64) {
    self.rawValue = rawValue
  }

  /// No tag: inputs sent by effects, timers, jobs and wiring carry it.
  public static let none = PostTag(0)
}
