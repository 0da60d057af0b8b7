import Foundation
import MillraceUV
import MillraceWire
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `ConnectionHandler.lookahead`: a connection decodes requests ahead of their turn for the
/// handler to warm the cache for, and still hands every one out once, in order.
@Suite("Connections decode requests ahead for a handler's prefetch", .serialized)
struct ConnectionLookaheadTests {
  /// Echoes `ECHO x` and records, in order, what it was handed and what it was asked to
  /// prefetch.
  final class Handler: ConnectionHandler {
    let lookahead: Int
    /// Events in order: "get x" for a request handed out, "pre x stage" for a prefetch stage
    /// (requests are `wN`: the state carries N and the next stage).
    var events: [String] = []
    /// Called with each request handed out, numbered from 1.
    var onRequest: ((Connection, Int) -> Void)?
    /// Whether the first stage of request `wN` leaves nothing more to warm (state 0).
    var warmsNothingMore: (Int) -> Bool = { _ in false }
    /// Called when the requests of a read (or slice) were handed out, after "handed" is
    /// recorded.
    var onHandedOut: ((Connection) -> Void)?
    private var handed = 0
    /// The state each request was handed out with, in order.
    var states: [UInt64] = []

    init(lookahead: Int) { self.lookahead = lookahead }

    func connection(_ connection: Connection, received frame: Frame) {
      self.connection(connection, received: frame, prefetched: 0)
    }

    func connection(_ connection: Connection, received frame: Frame, prefetched: UInt64) {
      events.append("get \(frame.string(at: 1))")
      states.append(prefetched)
      handed += 1
      onRequest?(connection, handed)
      connection.write { $0.bulkString(frame[1]) }
    }

    func connectionDidHandOut(_ connection: Connection) {
      events.append("handed")
      onHandedOut?(connection)
    }

    func connection(
      _ connection: Connection, prefetch frames: UnsafeBufferPointer<Frame>,
      into states: UnsafeMutableBufferPointer<UInt64>
    ) -> Bool {
      for (index, frame) in frames.enumerated() {
        let word = frame.string(at: 1)
        events.append("pre \(word) 0")
        let number = Int(word.dropFirst())!
        // A request with nothing more to warm keeps a state (its number, the stage past 0xff)
        // to be handed out with: only the stages' answers end them.
        states[index] = UInt64(number + 1) << 8 | (warmsNothingMore(number) ? 0xff : 1)
      }
      return states.contains { $0 & 0xff != 0xff }
    }

    func connection(
      _ connection: Connection, prefetchFrom states: UnsafeMutableBufferPointer<UInt64>
    ) -> Bool {
      #expect(states.contains { $0 & 0xff != 0xff }, "a stage after every request was done")
      for index in states.indices where states[index] & 0xff != 0xff {
        events.append("pre w\((states[index] >> 8) - 1) \(states[index] & 0xff)")
        states[index] += 1
      }
      return states.contains { $0 & 0xff != 0xff }
    }
  }

  /// A server whose connections get `handler`, and one client that sends `request` (in one
  /// write) and reads `expected` bytes back (or to the end when nil); returns what it read.
  static func exchange(
    _ handler: Handler, slice: Int = 64, request: [UInt8], expected: Int?
  ) throws -> [UInt8] {
    let loop = try EventLoop()
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    var configuration = StreamServer.Configuration()
    configuration.requestsPerSlice = slice
    let server = try StreamServer(
      loop: loop, address: .unix(path: directory + "/s.sock"), configuration: configuration,
      onFrame: { _, _ in Issue.record("a request reached onFrame") },
      onConnect: { $0.handler = handler })
    let tally = Tally()
    let received = Received()
    let fd = TestClient.connectUnix(path: directory + "/s.sock")
    spawnThread {
      _ = TestClient.send(fd, request)
      if let expected {
        received.bytes = TestClient.read(fd, count: expected) ?? []
      } else {
        received.bytes = TestClient.readToEnd(fd).bytes
      }
      close(fd)
      tally.succeed()
    }
    runLoop(loop, until: tally, reports: 1)
    server.close()
    try closeWithin(loop)
    return received.bytes
  }

  final class Received: @unchecked Sendable { var bytes: [UInt8] = [] }

  static func words(_ count: Int) -> [String] { (0..<count).map { "w\($0)" } }

  @Test func everyRequestIsHandedOutOnceInOrderAfterItsPrefetchStages() throws {
    let handler = Handler(lookahead: 3)
    let words = Self.words(40)
    let replies = try Self.exchange(
      handler, request: words.flatMap { respRequest(["ECHO", $0]) },
      expected: words.flatMap { respBulk($0) }.count)
    #expect(replies == words.flatMap { respBulk($0) })
    #expect(handler.events.filter { $0.hasPrefix("get") } == words.map { "get \($0)" })
    for word in words {
      let stages = handler.events.filter { $0.hasPrefix("pre \(word) ") }
      // Stages 0, 1, 2, in order, each given the state the one before left: every request
      // gets all of them, the first of a read too.
      #expect(stages == (0..<3).map { "pre \(word) \($0)" })
      // All before the request is handed out.
      let handedAt = handler.events.firstIndex(of: "get \(word)")!
      #expect(stages.allSatisfy { handler.events.firstIndex(of: $0)! < handedAt })
    }
    // The requests decoded as a group (up to 16 of those read) get their stages one stage at
    // a time for the whole group, before the first is handed out: their misses overlap. Then
    // the group is handed out, before the next group is decoded.
    var position = 0
    var handedOut = 0
    while position < handler.events.count {
      guard let firstGet = handler.events[position...].firstIndex(where: { $0.hasPrefix("get") })
      else { break }
      let stages = handler.events[position..<firstGet]
      let group = stages.count / 3
      #expect(group >= 1 && group <= 16 && stages.count == 3 * group)
      let sweep = words[handedOut..<handedOut + group]
      #expect(Array(stages) == (0..<3).flatMap { stage in sweep.map { "pre \($0) \(stage)" } })
      let gets = handler.events[firstGet...].prefix { !$0.hasPrefix("pre") }
      #expect(gets.filter { $0.hasPrefix("get") } == sweep.map { "get \($0)" })
      position = firstGet + gets.count
      handedOut += group
    }
    #expect(handedOut == words.count)
    // One write of 40 requests: the first group is a whole one.
    #expect(handler.events.prefix(while: { $0.hasPrefix("pre") }).count == 3 * 16)
    // Each request is handed out with the state its last stage left.
    #expect(handler.states == words.indices.map { UInt64($0 + 1) << 8 | 3 })
  }

  @Test func aStageThatLeavesNoStateIsTheRequestsLast() throws {
    let handler = Handler(lookahead: 3)
    handler.warmsNothingMore = { $0 % 3 == 1 }
    let words = Self.words(20)
    _ = try Self.exchange(
      handler, request: words.flatMap { respRequest(["ECHO", $0]) },
      expected: words.flatMap { respBulk($0) }.count)
    for (number, word) in words.enumerated() {
      let stages = handler.events.filter { $0.hasPrefix("pre \(word) ") }
      #expect(stages == (0..<(number % 3 == 1 ? 1 : 3)).map { "pre \(word) \($0)" })
    }
    #expect(
      handler.states == words.indices.map { UInt64($0 + 1) << 8 | ($0 % 3 == 1 ? 0xff : 3) })
  }

  @Test func aFirstStageThatLeavesNothingToWarmIsTheGroupsLast() throws {
    let handler = Handler(lookahead: 3)
    handler.warmsNothingMore = { _ in true }
    let words = Self.words(20)
    _ = try Self.exchange(
      handler, request: words.flatMap { respRequest(["ECHO", $0]) },
      expected: words.flatMap { respBulk($0) }.count)
    // No later stage was called (it would record an issue), and every request was handed out
    // with the state the first left.
    #expect(handler.events.filter { $0.hasPrefix("pre") } == words.map { "pre \($0) 0" })
    #expect(handler.states == words.indices.map { UInt64($0 + 1) << 8 | 0xff })
  }

  @Test func withoutLookaheadNothingIsPrefetched() throws {
    let handler = Handler(lookahead: 0)
    let words = Self.words(10)
    _ = try Self.exchange(
      handler, request: words.flatMap { respRequest(["ECHO", $0]) },
      expected: words.flatMap { respBulk($0) }.count)
    #expect(handler.events.filter { $0 != "handed" } == words.map { "get \($0)" })
    #expect(handler.states == words.map { _ in 0 })
  }

  @Test func theHandlerHearsOfEachSliceHandedOutAndItsWritesGoWithItsReplies() throws {
    let handler = Handler(lookahead: 0)
    handler.onHandedOut = { connection in connection.write { $0.simpleString("end") } }
    let words = Self.words(5)
    let end = Array("+end\r\n".utf8)
    let expected =
      respBulk("w0") + respBulk("w1") + end + respBulk("w2") + respBulk("w3") + end
      + respBulk("w4") + end
    let replies = try Self.exchange(
      handler, slice: 2, request: words.flatMap { respRequest(["ECHO", $0]) },
      expected: expected.count)
    #expect(replies == expected)
    #expect(
      handler.events == [
        "get w0", "get w1", "handed", "get w2", "get w3", "handed", "get w4", "handed",
      ])
  }

  @Test func pausesAndSlicesLoseNoRequestDecodedAhead() throws {
    let handler = Handler(lookahead: 4)
    let words = Self.words(100)
    handler.onRequest = { connection, number in
      guard number % 7 == 3 else { return }
      connection.pauseReading()
      let timer = LoopTimer(loop: connection.loop) { timer in
        connection.resumeReading()
        timer.close()
      }
      timer.start(after: .milliseconds(1))
    }
    let replies = try Self.exchange(
      handler, slice: 5, request: words.flatMap { respRequest(["ECHO", $0]) },
      expected: words.flatMap { respBulk($0) }.count)
    #expect(replies == words.flatMap { respBulk($0) })
    #expect(handler.events.filter { $0.hasPrefix("get") } == words.map { "get \($0)" })
  }

  @Test func aFramingErrorFoundAheadComesAfterTheRequestsBeforeIt() throws {
    let handler = Handler(lookahead: 4)
    let words = Self.words(3)
    // Three requests, then a bulk length that is not a number.
    let request = words.flatMap { respRequest(["ECHO", $0]) } + Array("*1\r\n$x\r\n".utf8)
    let replies = try Self.exchange(handler, request: request, expected: nil)
    let text = String(decoding: replies, as: UTF8.self)
    #expect(text.hasPrefix(String(decoding: words.flatMap { respBulk($0) }, as: UTF8.self)))
    #expect(text.contains("-ERR Protocol error"))
    #expect(handler.events.filter { $0.hasPrefix("get") } == words.map { "get \($0)" })
  }
}
