import MillraceClient
import Testing

/// The client against a server the test scripts byte by byte (see `FakeServer`).
@Suite struct ControlClientTests {
  /// A server, a client connected to it, and the server's side of the connection.
  func connected(tcp: Bool = false, timeoutSeconds: Int = 5) throws
    -> (FakeServer, ControlClient, FakeServer.Peer)
  {
    let server = try FakeServer(tcp: tcp)
    let client = try ControlClient(address: server.address, timeoutSeconds: timeoutSeconds)
    return (server, client, try server.accept())
  }

  @Test(arguments: [false, true])
  func requestsGoOutAsArraysAndRepliesComeBackInOrder(tcp: Bool) throws {
    let (_, client, peer) = try connected(tcp: tcp)
    peer.write("+PONG\r\n$3\r\non \r\n:2\r\n")
    #expect(try client.call("PING") == .simple("PONG"))
    try client.send(["STATE", "a b", ""])
    try client.send(["é"])
    #expect(try client.read() == .bulk("on "))
    #expect(try client.read() == .integer(2))
    #expect(try peer.request() == ["PING"])
    #expect(try peer.request() == ["STATE", "a b", ""])
    #expect(try peer.request() == ["é"])
  }

  @Test func helloAsksForRESP3AndNotesIt() throws {
    let (_, client, peer) = try connected()
    #expect(client.protocolVersion == .resp2)
    peer.write("-NOPROTO unsupported protocol version\r\n")
    #expect(try client.hello(protocol: .resp3).errorCode == "NOPROTO")
    #expect(client.protocolVersion == .resp2)
    #expect(try peer.request() == ["HELLO", "3"])

    peer.write("%2\r\n$6\r\nserver\r\n$9\r\nmillraced\r\n$5\r\nproto\r\n:3\r\n")
    let reply = try client.hello(
      protocol: .resp3, auth: (user: "default", password: "s3cret"), clientName: "tests")
    #expect(reply["proto"] == .integer(3))
    #expect(reply["server"]?.string == "millraced")
    #expect(client.protocolVersion == .resp3)
    #expect(
      try peer.request() == ["HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "tests"])

    peer.write("*2\r\n$5\r\nproto\r\n:2\r\n")
    #expect(try client.hello(protocol: .resp2)["proto"] == .integer(2))
    #expect(client.protocolVersion == .resp2)
  }

  /// Push frames arriving between replies do not take a reply's place, and are not lost.
  @Test func pushFramesAreKeptApartFromReplies() throws {
    let (_, client, peer) = try connected()
    let message = { (text: String) in
      ">3\r\n$7\r\nmessage\r\n$1\r\nd\r\n$\(text.utf8.count)\r\n\(text)\r\n"
    }
    peer.write(message("one") + "+PONG\r\n" + message("two") + ":1\r\n" + message("three"))
    #expect(try client.call("PING") == .simple("PONG"))
    #expect(try client.readReply() == .integer(1))
    for text in ["one", "two", "three"] {
      #expect(try client.readPush().strings == ["message", "d", text])
    }

    // And the other way round: replies read past while looking for a push frame come next.
    peer.write(":5\r\n" + message("four") + ":6\r\n")
    #expect(try client.readPush().strings?.last == "four")
    #expect(try client.read() == .integer(5))
    #expect(try client.read() == .integer(6))
  }

  @Test func readGivesEverythingInTheOrderReceived() throws {
    let (_, client, peer) = try connected()
    peer.write(">1\r\n+a\r\n+b\r\n>1\r\n+c\r\n")
    #expect(try client.read() == .push([.simple("a")]))
    #expect(try client.read() == .simple("b"))
    #expect(try client.read() == .push([.simple("c")]))
  }

  @Test func failuresSayWhatHappened() throws {
    let (_, client, peer) = try connected()
    peer.write("?\r\n")
    #expect(throws: ControlClient.Failure.self) { try client.read() }
    #expect(describe { try client.read() } == "malformed reply")

    let (_, other, otherPeer) = try connected()
    otherPeer.write("+OK\r\n")
    otherPeer.close()
    #expect(try other.read() == .simple("OK"))
    #expect(describe { try other.read() } == "connection closed by the daemon")

    #expect(describe { _ = try ControlClient(address: "no-port") } == "bad address no-port")
    let missing = "/nonexistent/millrace.sock"
    #expect(
      describe { _ = try ControlClient(address: missing) }
        == "cannot connect to \(missing): No such file or directory (is millraced running?)")
  }

  @Test func aSilentServerTimesOut() throws {
    let (server, client, peer) = try connected(timeoutSeconds: 1)
    withExtendedLifetime((server, peer)) {
      #expect(describe { try client.read() }?.hasPrefix("read failed: ") == true)
    }
  }

  /// The text of the `ControlClient.Failure` thrown, nil when `body` did not throw.
  private func describe(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      #expect(error is ControlClient.Failure)
      return "\(error)"
    }
  }
}
