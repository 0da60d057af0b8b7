import Testing

@testable import MillraceUV

/// `EventLoop.batchWrites`: writers that got bytes during a batch write once, when the
/// outermost batch ends.
@Suite struct WriteBatchTests {
  final class Writer: BatchedWriter {
    let name: String
    let log: Log
    /// Runs after the writer logged its write.
    var then: (() -> Void)?

    init(_ name: String, log: Log) {
      self.name = name
      self.log = log
    }

    func writeBatched() {
      log.writes.append(name)
      then?()
    }
  }

  final class Log {
    var writes: [String] = []
  }

  @Test func writersWriteOnceWhenTheOutermostBatchEnds() throws {
    let loop = try EventLoop()
    let log = Log()
    let first = Writer("first", log: log)
    let second = Writer("second", log: log)
    #expect(!loop.isBatchingWrites)
    loop.batchWrites {
      loop.batchWrites {
        #expect(loop.isBatchingWrites)
        loop.writeAtBatchEnd(first)
      }
      #expect(log.writes.isEmpty, "an inner batch's end writes nothing")
      loop.writeAtBatchEnd(second)
    }
    #expect(log.writes == ["first", "second"])
    #expect(!loop.isBatchingWrites)
    loop.batchWrites {}
    #expect(log.writes == ["first", "second"], "a batch writes only its own writers")
    try closeWithin(loop)
  }

  @Test func aWriterQueuedWhileTheBatchEndsWritesInTheSameEnd() throws {
    // A write that closes a connection may give bytes to another one.
    let loop = try EventLoop()
    let log = Log()
    let first = Writer("first", log: log)
    let late = Writer("late", log: log)
    first.then = { loop.writeAtBatchEnd(late) }
    loop.batchWrites { loop.writeAtBatchEnd(first) }
    #expect(log.writes == ["first", "late"])
    try closeWithin(loop)
  }
}
