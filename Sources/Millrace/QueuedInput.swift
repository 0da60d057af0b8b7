/// An input waiting in a machine's queue, with where it came from.
@usableFromInline
struct _QueuedInput<Input> {
  @usableFromInline
  var tag: PostTag
  /// The in-flight effect that produced it (slot << 32 | generation), or 0 for none. A
  /// delivery whose effect was cancelled meanwhile is skipped when it reaches the front.
  @usableFromInline
  var token: UInt64
  @usableFromInline
  var input: Input

  @inlinable
  init(input: Input, tag: PostTag, token: UInt64) {
    self.tag = tag
    self.token = token
    self.input = input
  }
}

/// A queued input in its pool cell, linked to the next one of its machine's queue. (The pool
/// keeps its free list in a free cell's first 4 bytes, which `queued` covers: a free cell
/// holds no input.)
@usableFromInline
struct _InputCell<Input> {
  @usableFromInline
  var queued: _QueuedInput<Input>
  /// The next cell of the queue, or `_CellPool.none`.
  @usableFromInline
  var next: UInt32

  @inlinable
  init(_ queued: _QueuedInput<Input>, next: UInt32) {
    self.queued = queued
    self.next = next
  }
}
