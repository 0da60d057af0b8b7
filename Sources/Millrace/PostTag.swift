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

  /// No tag: inputs sent by effects, timers, jobs and wiring carry it. (Computed, so that it
  /// folds to a constant where it is used; a stored static is read through an accessor call
  /// on every post.)
  @inlinable
  public static var none: PostTag { PostTag(0) }
}
