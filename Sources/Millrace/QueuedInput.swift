/// An input waiting in a machine's queue, with where it came from.
@usableFromInline
struct QueuedInput<Input> {
  @usableFromInline
  var input: Input
  @usableFromInline
  var tag: PostTag
  /// The in-flight effect that produced it (slot << 32 | generation), or 0 for none. A
  /// delivery whose effect was cancelled meanwhile is skipped when it reaches the front.
  @usableFromInline
  var token: UInt64

  @inlinable
  init(input: Input, tag: PostTag, token: UInt64) {
    self.input = input
    self.tag = tag
    self.token = token
  }
}
