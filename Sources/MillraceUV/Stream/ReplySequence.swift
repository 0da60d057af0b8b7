import MillraceWire

/// The replies of a connection that cannot go out yet: reserved slots not yet completed, and the
/// replies written or completed behind the first of them. Keeps request order whatever order the
/// replies are produced in.
///
/// Guarantees:
/// - Slots are numbered in reservation order; a slot completes once (a second completion, or one
///   of a slot never reserved, is refused and changes nothing).
/// - When nothing waits (`isEmpty`), a reply written now may go out at once: it is the caller's
///   to send. Otherwise it waits behind the last reply, in its buffer.
/// - A reply completed in the first slot, and every completed reply right behind it, are
///   released into the caller's output in order, and their slots forgotten.
/// - `waitingByteCount` is the bytes of the waiting replies, kept up to date by every call.
struct ReplySequence {
  private struct Reply {
    /// Its bytes, once something was written to it.
    var bytes: ByteBuffer?
    var ready: Bool
  }

  private var replies: [Reply] = []
  /// The first reply still waiting, in `replies`.
  private var head = 0
  /// The slot number of `replies[head]`.
  private var headSequence: UInt64 = 0
  /// The bytes of the waiting replies.
  private(set) var waitingByteCount = 0

  /// Whether no reply waits.
  var isEmpty: Bool { head == replies.count }

  /// Slots reserved and not yet completed, plus the replies waiting behind them.
  var count: Int { replies.count - head }

  /// The slot `reserve()` returns next.
  var nextSlot: Connection.ReplySlot {
    Connection.ReplySlot(sequence: headSequence + UInt64(replies.count - head))
  }

  /// Reserves the next place.
  mutating func reserve() -> Connection.ReplySlot {
    let slot = nextSlot
    replies.append(Reply(bytes: nil, ready: false))
    return slot
  }

  /// Calls `encode` with the buffer of the reply written now, behind the waiting ones: the last
  /// one if it is a completed reply, else a new one. Only while something waits.
  mutating func appendBehindWaiting(_ encode: (ByteBuffer) -> Void) {
    precondition(!isEmpty, "nothing waits: the reply goes out at once")
    if !replies[replies.count - 1].ready {
      replies.append(Reply(bytes: nil, ready: true))
    }
    fill(replyAt: replies.count - 1, encode)
  }

  /// Completes `slot`: `encode` writes its bytes into `output` when it is the first slot (then
  /// the completed replies behind it follow them there), else into the slot's own buffer.
  /// Returns false, calling nothing, for a slot already completed or never reserved.
  mutating func complete(
    _ slot: Connection.ReplySlot, releasingInto output: ByteBuffer,
    _ encode: (ByteBuffer) -> Void
  ) -> Bool {
    guard slot.sequence >= headSequence else { return false }
    let index = head + Int(slot.sequence - headSequence)
    guard index < replies.count, !replies[index].ready else { return false }
    replies[index].ready = true
    if index == head {
      // Every reply before it went out: encode it right behind them, without a buffer.
      encode(output)
      releaseReady(into: output)
    } else {
      fill(replyAt: index, encode)
    }
    return true
  }

  /// Forgets every waiting reply and slot (the connection closed).
  mutating func removeAll() {
    replies = []
    head = 0
    waitingByteCount = 0
  }

  private mutating func fill(replyAt index: Int, _ encode: (ByteBuffer) -> Void) {
    let target = replies[index].bytes ?? ByteBuffer()
    replies[index].bytes = target
    let before = target.count
    encode(target)
    waitingByteCount += target.count - before
  }

  private mutating func releaseReady(into output: ByteBuffer) {
    while head < replies.count && replies[head].ready {
      if let bytes = replies[head].bytes {
        waitingByteCount -= bytes.count
        bytes.withUnsafeBytes { output.append($0) }
        replies[head].bytes = nil
      }
      head += 1
      headSequence += 1
    }
    if head == replies.count {
      replies.removeAllKeepingCapacity()
      head = 0
    } else if head >= 64 && head * 2 >= replies.count {
      replies.removeFirst(head)
      head = 0
    }
  }
}
