import Foundation
import MillraceUV
import MillraceWire
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Stream servers over TCP and Unix sockets", .serialized)
struct StreamServerTests {
  /// An echo handler that answers `ECHO x` with the bulk string `x`. Every third request is
  /// answered late and out of order (a reserved slot completed by a timer whose delay shrinks
  /// as requests go on), so order depends on the reply slots, not on timing.
  final class EchoService {
    let loop: EventLoop
    var handled = 0
    var timers: [LoopTimer] = []

    init(loop: EventLoop) { self.loop = loop }

    func handle(_ connection: Connection, _ frame: Frame) {
      handled += 1
      let payload = Array(frame[frame.count - 1])
      if handled % 3 == 0 {
        let slot = connection.reserveReply()
        let timer = LoopTimer(loop: loop) { timer in
          connection.complete(slot) { $0.bulkString(payload) }
          timer.close()
        }
        timer.start(after: .milliseconds(1 + (5 - handled % 5)))
      } else {
        connection.write { $0.bulkString(payload) }
      }
    }
  }

  /// Runs `clients` client threads that each pipeline `requests` ECHO requests in one send and
  /// check every reply, in order. Stops the loop when all are done.
  func runClients(
    loop: EventLoop, clients: Int, requests: Int, connect: @escaping @Sendable () -> Int32
  ) -> Tally {
    let tally = Tally()
    for client in 0..<clients {
      spawnThread {
        let fd = connect()
        guard fd >= 0 else { return tally.fail("client \(client): connect failed: \(errno)") }
        defer { close(fd) }
        var request: [UInt8] = []
        var expected: [UInt8] = []
        for index in 0..<requests {
          let payload = "client-\(client)-request-\(index)"
          request += respRequest(["ECHO", payload])
          expected += respBulk(payload)
        }
        guard TestClient.send(fd, request) else { return tally.fail("client \(client): send") }
        guard let reply = TestClient.read(fd, count: expected.count) else {
          return tally.fail("client \(client): short read")
        }
        if reply != expected {
          tally.fail("client \(client): replies out of order or wrong")
        } else {
          tally.succeed()
        }
      }
    }
    runLoop(loop, until: tally, reports: clients, timeout: 60)
    return tally
  }

  @Test func hundredTCPClientsGetEveryReplyInOrder() throws {
    let loop = try EventLoop()
    let echo = EchoService(loop: loop)
    let server = try StreamServer(loop: loop, address: .loopback(port: 0), onFrame: echo.handle)
    guard case .tcp(let host, let port) = server.address else {
      Issue.record("not a TCP address: \(server.address)")
      return
    }
    #expect(host == "127.0.0.1")
    #expect(port > 0)
    let tally = runClients(loop: loop, clients: 100, requests: 10) {
      TestClient.connectTCP(port: port)
    }
    #expect(tally.failures == [])
    #expect(tally.done == 100)
    #expect(echo.handled == 1000)
    #expect(server.acceptedCount == 100)
    try closeWithin(loop)
  }

  @Test func hundredUnixSocketClientsGetEveryReplyInOrder() throws {
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    let path = directory + "/s.sock"
    let loop = try EventLoop()
    let echo = EchoService(loop: loop)
    let server = try StreamServer(loop: loop, address: .unix(path: path), onFrame: echo.handle)
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600, "the socket is private to its owner")
    let tally = runClients(loop: loop, clients: 100, requests: 10) {
      TestClient.connectUnix(path: path)
    }
    #expect(tally.failures == [])
    #expect(echo.handled == 1000)
    server.close()
    try closeWithin(loop)
    #expect(access(path, F_OK) != 0, "the socket file is removed on close")
  }

  /// A daemon keeps its sessions by connection id across all its listeners (a Unix socket and
  /// TCP): two servers on one loop never give two connections the same id.
  @Test func connectionIdsAreUniqueAcrossTheServersOfALoop() throws {
    let loop = try EventLoop()
    let echo = EchoService(loop: loop)
    var ids: [UInt64] = []
    let servers = try (0..<2).map { _ in
      try StreamServer(
        loop: loop, address: .loopback(port: 0), onFrame: echo.handle,
        onConnect: { ids.append($0.id) })
    }
    for server in servers {
      guard case .tcp(_, let port) = server.address else {
        Issue.record("not a TCP address: \(server.address)")
        return
      }
      let tally = runClients(loop: loop, clients: 3, requests: 1) {
        TestClient.connectTCP(port: port)
      }
      #expect(tally.failures == [])
    }
    #expect(ids.count == 6)
    #expect(Set(ids).count == ids.count, "ids \(ids)")
    for server in servers { server.close() }
    try closeWithin(loop)
  }

  @Test func ipv6LoopbackAndLineFraming() throws {
    // The configured framing picks the connection's decoder: lines, whose over-long one closes
    // the connection without a reply (the default error reply is RESP's only).
    let loop = try EventLoop()
    var configuration = StreamServer.Configuration(framing: .lines)
    configuration.maxFrameLength = 32
    var reasons: [Connection.CloseReason] = []
    let server = try StreamServer(
      loop: loop, address: try ListenAddress(parsing: "[::1]:0"), configuration: configuration,
      onFrame: { connection, frame in
        connection.write(Array("got \(frame.string(at: 0))\n".utf8))
      },
      onClose: { _, reason in reasons.append(reason) })
    guard case .tcp(let host, let port) = server.address else { return }
    #expect(host == "::1")
    let tally = Tally()
    spawnThread {
      let fd = TestClient.connectTCP(host: "::1", port: port)
      guard fd >= 0 else { return tally.fail("connect") }
      defer { close(fd) }
      TestClient.send(fd, Array("one\n*1 two\n".utf8) + Array(repeating: 120, count: 40))
      let (reply, closed) = TestClient.readToEnd(fd)
      reply == Array("got one\ngot *1 two\n".utf8) && closed
        ? tally.succeed() : tally.fail("got \(String(decoding: reply, as: UTF8.self))")
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(tally.failures == [])
    #expect(reasons == [.framing(.tooLong)])
    try closeWithin(loop)
  }

  @Test func overLongFrameIsRejectedWhileAnotherClientCarriesOn() throws {
    let loop = try EventLoop()
    var closeReasons: [Connection.CloseReason] = []
    let server = try StreamServer(
      loop: loop, address: .loopback(port: 0),
      onFrame: { connection, frame in
        if frame.part(0, equalsIgnoringCase: "PING") {
          connection.write { $0.simpleString("PONG") }
        }
      },
      onClose: { _, reason in closeReasons.append(reason) })
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    let finished = SharedFlag()
    spawnThread {
      let good = TestClient.connectTCP(port: port)
      let bad = TestClient.connectTCP(port: port)
      defer {
        while !finished.isSet { usleep(1000) }  // keep `good` open until the loop checked
        close(good)
        close(bad)
      }
      let pong = Array("+PONG\r\n".utf8)
      TestClient.send(good, respRequest(["PING"]))
      guard TestClient.read(good, count: pong.count) == pong else {
        return tally.fail("first ping")
      }
      // 70 000 bytes announced: over the 64 KiB default. Only the header is sent.
      TestClient.send(bad, Array("*2\r\n$4\r\nECHO\r\n$70000\r\nxxxx".utf8))
      let (reply, closed) = TestClient.readToEnd(bad)
      guard closed,
        String(decoding: reply, as: UTF8.self).hasPrefix("-ERR Protocol error: request exceeds")
      else {
        return tally.fail(
          "bad client got \(String(decoding: reply, as: UTF8.self)), closed \(closed)")
      }
      TestClient.send(good, Array("PING\r\n".utf8))
      guard TestClient.read(good, count: pong.count) == pong else {
        return tally.fail("second ping")
      }
      tally.succeed()
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(tally.failures == [])
    #expect(closeReasons == [.framing(.tooLong)])
    #expect(server.connectionCount == 1)
    finished.set()
    try closeWithin(loop)
  }

  @Test func malformedFrameGetsAProtocolErrorAndIsClosed() throws {
    let loop = try EventLoop()
    let server = try StreamServer(loop: loop, address: .loopback(port: 0)) { connection, _ in
      connection.write { $0.simpleString("OK") }
    }
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    spawnThread {
      let fd = TestClient.connectTCP(port: port)
      defer { close(fd) }
      TestClient.send(fd, Array("PING\r\n*1\r\n+nope\r\n".utf8))
      let (reply, closed) = TestClient.readToEnd(fd)
      let text = String(decoding: reply, as: UTF8.self)
      closed && text.hasPrefix("+OK\r\n-ERR Protocol error: expected '$'")
        ? tally.succeed() : tally.fail("got \(text.debugDescription)")
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(tally.failures == [])
    try closeWithin(loop)
  }

  @Test func pausedConnectionHandlesNothingUntilResumed() throws {
    let loop = try EventLoop()
    var handled: [String] = []
    var handledWhilePaused: [String] = []
    var paused: Connection?
    let server = try StreamServer(loop: loop, address: .loopback(port: 0)) { connection, frame in
      handled.append(frame.string(at: 1))
      connection.write { $0.bulkString(frame[1]) }
      if handled.count == 1 {
        // Pause after the first of several pipelined requests: the rest is buffered.
        connection.pauseReading()
        paused = connection
        let resume = LoopTimer(loop: loop) { timer in
          handledWhilePaused = handled
          connection.resumeReading()
          timer.close()
        }
        resume.start(after: .milliseconds(150))
      }
    }
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    let words = (0..<6).map { "w\($0)" }
    spawnThread {
      let fd = TestClient.connectTCP(port: port)
      defer { close(fd) }
      TestClient.send(fd, words.prefix(3).flatMap { respRequest(["ECHO", $0]) })
      usleep(50_000)  // more requests arrive while paused
      TestClient.send(fd, words.suffix(3).flatMap { respRequest(["ECHO", $0]) })
      let expected = words.flatMap { respBulk($0) }
      TestClient.read(fd, count: expected.count) == expected
        ? tally.succeed() : tally.fail("replies")
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(handledWhilePaused == ["w0"])
    #expect(handled == words)
    #expect(paused?.isPaused == false)
    #expect(tally.failures == [])
    try closeWithin(loop)
  }

  @Test func repliesOfAWriteBatchGoOutOnceAtItsEnd() throws {
    let loop = try EventLoop()
    var queuedInBatch: [Int] = []
    var queuedAfterBatch = -1
    var queuedOutsideBatch = -1
    let server = try StreamServer(loop: loop, address: .loopback(port: 0)) { connection, _ in
      // Answer from a timer, as a runtime turn would: outside the read batch.
      let later = LoopTimer(loop: loop) { timer in
        loop.batchWrites {
          connection.write { $0.bulkString("a") }
          queuedInBatch.append(connection.queuedByteCount)
          connection.write { $0.bulkString("b") }
          queuedInBatch.append(connection.queuedByteCount)
        }
        queuedAfterBatch = connection.queuedByteCount
        connection.write { $0.bulkString("c") }
        queuedOutsideBatch = connection.queuedByteCount
        timer.close()
      }
      later.start(after: .milliseconds(1))
    }
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    spawnThread {
      let fd = TestClient.connectTCP(port: port)
      defer { close(fd) }
      TestClient.send(fd, respRequest(["ECHO", "x"]))
      let expected = respBulk("a") + respBulk("b") + respBulk("c")
      TestClient.read(fd, count: expected.count) == expected
        ? tally.succeed() : tally.fail("replies")
    }
    runLoop(loop, until: tally, reports: 1)
    // Held until the batch ended, then written at once; outside a batch, written at once.
    #expect(queuedInBatch == [7, 14])
    #expect(queuedAfterBatch == 0)
    #expect(queuedOutsideBatch == 0)
    #expect(tally.failures == [])
    try closeWithin(loop)
  }

  @Test func completedReplyIsAmendedInItsPlaceUntilWritten() throws {
    // Three requests read at once: the first two get reserved slots, the third is answered at
    // once (waiting behind them). A timer then completes the second (it waits behind the
    // first) and the first (it goes out first, the others released behind it), amending each
    // right after, within one write batch; once written, a reply can no longer be amended.
    let loop = try EventLoop()
    var slots: [Connection.ReplySlot] = []
    var amended: [Bool] = []
    let server = try StreamServer(loop: loop, address: .loopback(port: 0)) { connection, frame in
      guard frame.count == 1 else {
        connection.write { $0.simpleString("third") }
        let later = LoopTimer(loop: loop) { timer in
          loop.batchWrites {
            connection.complete(slots[1]) { $0.simpleString("second") }
            amended.append(connection.amendCompleted(slots[1]) { $0.simpleString("SECOND") })
            // Not the last completed any more.
            amended.append(connection.amendCompleted(slots[0]) { $0.simpleString("none") })
            connection.complete(slots[0]) { $0.simpleString("first") }
            amended.append(connection.amendCompleted(slots[0]) { $0.simpleString("FIRST!") })
          }
          amended.append(connection.amendCompleted(slots[0]) { $0.simpleString("late") })
          timer.close()
        }
        later.start(after: .milliseconds(1))
        return
      }
      slots.append(connection.reserveReply())
    }
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    spawnThread {
      let fd = TestClient.connectTCP(port: port)
      defer { close(fd) }
      TestClient.send(fd, respRequest(["A"]) + respRequest(["B"]) + respRequest(["C", "x"]))
      let expected = Array("+FIRST!\r\n+SECOND\r\n+third\r\n".utf8)
      TestClient.read(fd, count: expected.count) == expected
        ? tally.succeed() : tally.fail("replies")
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(amended == [true, false, true, false])
    #expect(tally.failures == [])
    try closeWithin(loop)
  }

  @Test func fullQueuePausesReadingAndRoomResumesIt() throws {
    // A bounded queue of 3 in front of a slow consumer: the connection pauses when the queue
    // is full and resumes when there is room, so nothing is dropped and nothing grows.
    let loop = try EventLoop()
    var queue: [(Connection, Connection.ReplySlot, [UInt8])] = []
    var maxQueued = 0
    var pauses = 0
    let server = try StreamServer(loop: loop, address: .loopback(port: 0)) { connection, frame in
      queue.append((connection, connection.reserveReply(), Array(frame[1])))
      maxQueued = max(maxQueued, queue.count)
      if queue.count == 3 {
        connection.pauseReading()
        pauses += 1
      }
    }
    let consumer = LoopTimer(loop: loop) { _ in
      guard !queue.isEmpty else { return }
      let (connection, slot, payload) = queue.removeFirst()
      connection.complete(slot) { $0.bulkString(payload) }
      if connection.isPaused { connection.resumeReading() }
    }
    consumer.start(after: .milliseconds(2), repeat: .milliseconds(2))
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    spawnThread {
      let fd = TestClient.connectTCP(port: port)
      defer { close(fd) }
      let words = (0..<40).map { "item\($0)" }
      TestClient.send(fd, words.flatMap { respRequest(["PUSH", $0]) })
      let expected = words.flatMap { respBulk($0) }
      TestClient.read(fd, count: expected.count) == expected
        ? tally.succeed() : tally.fail("replies")
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(tally.failures == [])
    #expect(maxQueued == 3)
    #expect(pauses >= 10)
    try closeWithin(loop)
  }

  @Test func clientThatNeverReadsIsClosedAtTheWriteLimit() throws {
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    let path = directory + "/w.sock"
    let loop = try EventLoop()
    var configuration = StreamServer.Configuration()
    configuration.writeBufferLimit = 64 * 1024
    var reasons: [Connection.CloseReason] = []
    let big = [UInt8](repeating: UInt8(ascii: "z"), count: 32 * 1024)
    var otherReplies = 0
    let server = try StreamServer(
      loop: loop, address: .unix(path: path), configuration: configuration,
      onFrame: { connection, frame in
        if frame.part(0, equalsIgnoringCase: "BIG") {
          connection.write { $0.bulkString(big) }
        } else {
          otherReplies += 1
          connection.write { $0.simpleString("PONG") }
        }
      },
      onClose: { _, reason in
        reasons.append(reason)
        loop.stop()
      })
    let tally = Tally()
    let finished = SharedFlag()
    spawnThread {
      let fd = TestClient.connectUnix(path: path, receiveBuffer: 4096)
      defer { close(fd) }
      // 500 requests for 32 KiB each: 16 MB of replies that are never read.
      TestClient.send(fd, [UInt8]((0..<500).flatMap { _ in Array("BIG\r\n".utf8) }))
      while !finished.isSet { usleep(1000) }
      tally.succeed()
    }
    runLoop(loop)
    #expect(reasons == [.writeLimitExceeded])
    // The server still serves others.
    spawnThread {
      let fd = TestClient.connectUnix(path: path)
      defer { close(fd) }
      TestClient.send(fd, Array("PING\r\n".utf8))
      TestClient.read(fd, count: 7) == Array("+PONG\r\n".utf8)
        ? tally.succeed() : tally.fail("ping")
    }
    runLoop(loop, until: tally, reports: 1)
    #expect(otherReplies == 1)
    finished.set()
    #expect(tally.failures == [])
    server.close()
    try closeWithin(loop)
  }

  @Test func clientsVanishingMidFrameAndMidReplyLeaveNoTrace() throws {
    let loop = try EventLoop()
    var framesAfterClose = 0
    var closed: [UInt64: Connection.CloseReason] = [:]
    let big = [UInt8](repeating: 1, count: 256 * 1024)
    let server = try StreamServer(
      loop: loop, address: .loopback(port: 0),
      onFrame: { connection, frame in
        if closed[connection.id] != nil { framesAfterClose += 1 }
        if frame.part(0, equalsIgnoringCase: "BIG") {
          connection.write { $0.bulkString(big) }
        } else {
          // Reply later, after the client is gone.
          let slot = connection.reserveReply()
          let timer = LoopTimer(loop: loop) { timer in
            #expect(!connection.complete(slot) { $0.simpleString("late") })
            timer.close()
          }
          timer.start(after: .milliseconds(300))
        }
      },
      onClose: { connection, reason in closed[connection.id] = reason })
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    for kind in 0..<30 {
      spawnThread {
        let fd = TestClient.connectTCP(port: port)
        guard fd >= 0 else { return tally.fail("connect") }
        switch kind % 3 {
        case 0: TestClient.send(fd, Array("*3\r\n$4\r\nECHO\r\n$10\r\nabc".utf8))  // mid-frame
        case 1: TestClient.send(fd, Array("BIG\r\nBIG\r\nBIG\r\n".utf8))  // mid-reply
        default: TestClient.send(fd, Array("WAIT\r\n".utf8))  // before a late reply
        }
        usleep(20_000)
        // Reset instead of a clean close: SO_LINGER 0.
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
        tally.succeed()
      }
    }
    let poll = LoopTimer(loop: loop) { _ in
      if tally.done == 30 && closed.count == 30 && server.connectionCount == 0 {
        let settle = LoopTimer(loop: loop) { _ in loop.stop() }
        settle.start(after: .milliseconds(400))  // let the late replies try to land
      }
    }
    poll.start(after: .milliseconds(5), repeat: .milliseconds(5))
    runLoop(loop)
    poll.close()
    #expect(closed.count == 30)
    #expect(framesAfterClose == 0)
    #expect(server.connectionCount == 0)
    try closeWithin(loop)
  }

  @Test func staleSocketFilesAreReplacedButLiveOnesAndOtherFilesAreNot() throws {
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    let loop = try EventLoop()
    // A stale socket: bound, then its owner went away without unlinking it.
    let stalePath = directory + "/stale.sock"
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: stalePath.utf8) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    close(fd)
    let first = try StreamServer(loop: loop, address: .unix(path: stalePath)) { _, _ in }
    #expect(throws: UVError.addressInUse) {
      try StreamServer(loop: loop, address: .unix(path: stalePath)) { _, _ in }
    }
    let filePath = directory + "/not-a-socket"
    #expect(FileManager.default.createFile(atPath: filePath, contents: Data("keep".utf8)))
    #expect(throws: UVError.fileExists) {
      try StreamServer(loop: loop, address: .unix(path: filePath)) { _, _ in }
    }
    #expect(FileManager.default.contents(atPath: filePath) == Data("keep".utf8))
    #expect(throws: UVError.nameTooLong) {
      try StreamServer(
        loop: loop, address: .unix(path: directory + "/" + String(repeating: "n", count: 120))
      ) { _, _ in }
    }
    #expect(throws: UVError.addressInUse) {
      let tcp = try StreamServer(loop: loop, address: .loopback(port: 0)) { _, _ in }
      guard case .tcp(_, let port) = tcp.address else { return }
      _ = try StreamServer(loop: loop, address: .loopback(port: port)) { _, _ in }
    }
    first.close()
    try closeWithin(loop)
  }

  @Test func quitWaitsForEarlierLateRepliesAndHalfCloseStillGetsReplies() throws {
    let loop = try EventLoop()
    var handled: [String] = []
    var reasons: [Connection.CloseReason] = []
    let server = try StreamServer(
      loop: loop, address: .loopback(port: 0),
      onFrame: { connection, frame in
        handled.append(frame.string(at: 0))
        switch frame.string(at: 0) {
        case "SLOW":
          let slot = connection.reserveReply()
          let timer = LoopTimer(loop: loop) { timer in
            connection.complete(slot) { $0.simpleString("slow") }
            timer.close()
          }
          timer.start(after: .milliseconds(50))
        case "QUIT":
          connection.write { $0.simpleString("OK") }
          connection.closeAfterWriting()
        default:
          connection.write { $0.simpleString("PONG") }
        }
      },
      onClose: { _, reason in reasons.append(reason) })
    guard case .tcp(_, let port) = server.address else { return }
    let tally = Tally()
    spawnThread {
      let quitter = TestClient.connectTCP(port: port)
      TestClient.send(quitter, Array("SLOW\r\nQUIT\r\nPING\r\n".utf8))
      let (quitReply, quitClosed) = TestClient.readToEnd(quitter)
      close(quitter)
      let halfCloser = TestClient.connectTCP(port: port)
      TestClient.send(halfCloser, Array("PING\r\nSLOW\r\n".utf8))
      shutdown(halfCloser, Int32(SHUT_WR))
      let (halfReply, halfClosed) = TestClient.readToEnd(halfCloser)
      close(halfCloser)
      let quitText = String(decoding: quitReply, as: UTF8.self)
      let halfText = String(decoding: halfReply, as: UTF8.self)
      if quitText != "+slow\r\n+OK\r\n" || !quitClosed {
        tally.fail("quit: \(quitText.debugDescription)")
      } else if halfText != "+PONG\r\n+slow\r\n" || !halfClosed {
        tally.fail("half-close: \(halfText.debugDescription)")
      } else {
        tally.succeed()
      }
    }
    let poll = LoopTimer(loop: loop) { _ in
      if tally.done == 1 && server.connectionCount == 0 { loop.stop() }
    }
    poll.start(after: .milliseconds(5), repeat: .milliseconds(5))
    runLoop(loop)
    #expect(tally.failures == [])
    // The quitter's PING after QUIT is never handled; the PING here is the half-closer's.
    #expect(handled == ["SLOW", "QUIT", "PING", "SLOW"])
    #expect(reasons == [.local, .peerClosed])
    try closeWithin(loop)
  }

  @Test func addressesParse() throws {
    #expect(try ListenAddress(parsing: "6379") == .tcp(host: "127.0.0.1", port: 6379))
    #expect(try ListenAddress(parsing: ":6379") == .tcp(host: "127.0.0.1", port: 6379))
    #expect(try ListenAddress(parsing: "0.0.0.0:1") == .tcp(host: "0.0.0.0", port: 1))
    #expect(try ListenAddress(parsing: "[::1]:80") == .tcp(host: "::1", port: 80))
    #expect(try ListenAddress(parsing: "./run/s.sock") == .unix(path: "./run/s.sock"))
    for bad in ["", "host:", "::1:80", "[::1]80", "h:70000", "h:x"] {
      #expect(throws: UVError.invalidArgument, "\(bad)") { try ListenAddress(parsing: bad) }
    }
  }
}
