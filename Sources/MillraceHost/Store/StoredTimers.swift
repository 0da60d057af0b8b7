/// A machine's pending timers as the store read them, in their compact form
/// (`TimerEncoding`), decoded one at a time as they are iterated: no array, no `String`.
///
/// Valid only while the bytes it was made over are (during a `MachineStore.forEach` call);
/// the store checked them before handing them out, so iterating yields every timer.
public struct StoredTimers: Sequence {
  /// The encoded timers.
  let bytes: UnsafeRawBufferPointer

  init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  /// Whether the machine has no pending timer.
  public var isEmpty: Bool { bytes.isEmpty }

  /// Decodes the timers in order.
  public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

  /// Decodes one timer after another; ends at the end of the bytes (or at damage, which a
  /// checked list has none of).
  public struct Iterator: IteratorProtocol {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    /// The next timer, or nil after the last.
    public mutating func next() -> StoredTimerView? {
      TimerEncoding.timer(in: bytes, at: &offset)
    }
  }
}

/// One pending timer as the store read it: `StoredTimer`'s fields with the input as the bytes
/// of its UTF-8 text, valid as long as the `StoredTimers` it came from.
public struct StoredTimerView {
  /// The input the timer sends, UTF-8.
  public let input: UnsafeRawBufferPointer
  /// `every` rather than `after`.
  public let repeats: Bool
  /// Delay or period in nanoseconds.
  public let spanNanoseconds: Int64
  /// When it fires next (wall clock, ns since the Unix epoch); nil while it waits for room on
  /// its queue.
  public let deadlineWallNanoseconds: Int64?
  /// How long it had left until `deadlineWallNanoseconds` when it was last saved (monotonic
  /// ns); nil when not known or without a deadline.
  public let remainingNanoseconds: Int64?
  /// The queue index in the kind's layout.
  public let queue: UInt8
  /// The raw effect id (0 for none).
  public let effectID: UInt64

  /// The timer as a `StoredTimer` (its input copied into a `String`).
  public var timer: StoredTimer {
    StoredTimer(
      input: String(decoding: input, as: UTF8.self), repeats: repeats,
      spanNanoseconds: spanNanoseconds, deadlineWallNanoseconds: deadlineWallNanoseconds,
      remainingNanoseconds: remainingNanoseconds, queue: queue, effectID: effectID)
  }
}
