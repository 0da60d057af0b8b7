import MillraceWire
import Testing

@testable import MillraceUV

/// Replies leave in request order whatever order they are produced in (`Connection`'s reply
/// sequence, without a socket).
@Suite struct ReplySequenceTests {
  /// A reply sequence and the output it releases into, used as `Connection` uses it; each reply
  /// is its name and a space.
  final class Queue {
    var replies = ReplySequence()
    let output = ByteBuffer()

    func reserve() -> Connection.ReplySlot { replies.reserve() }

    func write(_ name: String) { replies.appendBehindWaiting(Self.bytes(name)) }

    func complete(_ slot: Connection.ReplySlot, _ name: String) -> Bool {
      switch replies.complete(slot) {
      case .refused:
        return false
      case .first:
        Self.bytes(name)(output)
        replies.releaseReady { bytes in bytes.withUnsafeBytes { output.append($0) } }
      case .waiting:
        replies.fill(slot, Self.bytes(name))
      }
      return true
    }

    /// What was released, in order.
    var released: String { String(decoding: output.bytes, as: UTF8.self) }

    static func bytes(_ name: String) -> (ByteBuffer) -> Void {
      { buffer in Array((name + " ").utf8).withUnsafeBytes { buffer.append($0) } }
    }
  }

  @Test func repliesLeaveInSlotOrderWhateverOrderTheyAreCompletedIn() {
    let queue = Queue()
    let (a, b, c) = (queue.reserve(), queue.reserve(), queue.reserve())
    queue.write("d")
    #expect(queue.complete(c, "c"))
    #expect(queue.complete(b, "b"))
    #expect(queue.released.isEmpty, "nothing leaves before the first slot")
    #expect(queue.replies.count == 4)
    #expect(queue.replies.waitingByteCount == 6)
    #expect(queue.complete(a, "a"))
    #expect(queue.released == "a b c d ")
    #expect(queue.replies.isEmpty)
    #expect(queue.replies.waitingByteCount == 0)
  }

  @Test func aWriteWaitsBehindTheLastReplyWhetherReservedOrCompleted() {
    let queue = Queue()
    let a = queue.reserve()
    queue.write("x1")
    queue.write("x2")
    let b = queue.reserve()
    queue.write("y")
    #expect(queue.replies.count == 4, "two writes behind a slot join one waiting reply")
    #expect(queue.complete(b, "b"))
    #expect(queue.complete(a, "a"))
    #expect(queue.released == "a x1 x2 b y ")
  }

  @Test func aSlotCompletesOnceAndOnlyIfReserved() {
    let queue = Queue()
    let first = queue.reserve()
    let second = queue.reserve()
    #expect(queue.complete(second, "2"))
    #expect(!queue.complete(second, "again"))
    #expect(!queue.complete(queue.replies.nextSlot, "never"))
    #expect(queue.complete(first, "1"))
    #expect(!queue.complete(first, "released"))
    #expect(queue.released == "1 2 ")
    #expect(queue.replies.waitingByteCount == 0)
  }

  @Test func hundredsOfSlotsKeepTheirOrderAsTheQueueMoves() {
    // Half released in order (the queue drops its head), the rest completed backwards.
    let queue = Queue()
    let slots = (0..<300).map { _ in queue.reserve() }
    for index in 0..<150 {
      #expect(queue.complete(slots[index], "\(index)"))
    }
    #expect(queue.replies.count == 150)
    for index in (150..<300).reversed() {
      #expect(queue.complete(slots[index], "\(index)"))
    }
    #expect(queue.released == (0..<300).map { "\($0) " }.joined())
    #expect(queue.replies.isEmpty && queue.replies.waitingByteCount == 0)
  }

  @Test func removeAllForgetsEveryWaitingReply() {
    let queue = Queue()
    let slot = queue.reserve()
    queue.write("behind")
    queue.replies.removeAll()
    #expect(queue.replies.isEmpty && queue.replies.count == 0)
    #expect(queue.replies.waitingByteCount == 0)
    #expect(!queue.complete(slot, "late"))
    #expect(queue.released.isEmpty)
  }
}
