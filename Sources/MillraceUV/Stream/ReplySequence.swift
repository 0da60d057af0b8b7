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
/// - A reply completed in the first slot goes out at once (it is the caller's to send); then
///   `releaseReady` hands over every completed reply right behind it, in order, and forgets
///   their slots.
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

  /// What completing a slot asks of the caller.
  enum Completion {
    /// The slot was completed already, or never reserved: nothing changed.
    case refused
    /// Every reply before it went out: send its bytes at once, then `releaseReady(_:)`.
    case first
    /// A reply before it still waits: `fill(_:_:)` writes its bytes into its own buffer.
    case waiting
  }

  /// Marks `slot` completed, and says where its bytes go.
  mutating func complete(_ slot: Connection.ReplySlot) -> Completion {
    guard let index = index(of: slot), !replies[index].ready else { return .refused }
    replies[index].ready = true
    return index == head ? .first : .waiting
  }

  /// Calls `encode` with the buffer of `slot`, completed and waiting (`complete` returned
  /// `.waiting`), counting what it adds.
  mutating func fill(_ slot: Connection.ReplySlot, _ encode: (ByteBuffer) -> Void) {
    guard let index = index(of: slot), index != head, replies[index].ready else {
      preconditionFailure("fill(_:_:) is for a completed slot that waits")
    }
    fill(replyAt: index, encode)
  }

  /// Empties the buffer of `slot`, completed and still waiting, and calls `encode` with it;
  /// returns false, changing nothing, when `slot` is not such a slot.
  mutating func refill(_ slot: Connection.ReplySlot, _ encode: (ByteBuffer) -> Void) -> Bool {
    guard let index = index(of: slot), index != head, replies[index].ready else { return false }
    if let bytes = replies[index].bytes {
      waitingByteCount -= bytes.count
      bytes.removeAll()
    }
    fill(replyAt: index, encode)
    return true
  }

  /// After the first slot was completed and sent: calls `send` with the bytes of every
  /// completed reply right behind it, in order, and forgets their slots.
  mutating func releaseReady(_ send: (ByteBuffer) -> Void) {
    while head < replies.count && replies[head].ready {
      if let bytes = replies[head].bytes {
        waitingByteCount -= bytes.count
        send(bytes)
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

  /// Forgets every waiting reply and slot (the connection closed).
  mutating func removeAll() {
    replies = []
    head = 0
    waitingByteCount = 0
  }

  /// Where `slot` is in `replies`, if it is there.
  private func index(of slot: Connection.ReplySlot) -> Int? {
    guard slot.sequence >= headSequence else { return nil }
    let index = head + Int(slot.sequence - headSequence)
    return index < replies.count ? index : nil
  }

  private mutating func fill(replyAt index: Int, _ encode: (ByteBuffer) -> Void) {
    let target = replies[index].bytes ?? ByteBuffer()
    replies[index].bytes = target
    let before = target.count
    encode(target)
    waitingByteCount += target.count - before
  }
}
