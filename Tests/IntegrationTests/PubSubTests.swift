import Foundation
import MillraceClient
import Testing

/// Pub/sub as Redis does it: channels are names, patterns are globs, subscribed mode (RESP2)
/// accepts only what Redis accepts there.
@Suite("Pub/sub")
struct PubSubTests {
  @Test("SUBSCRIBE, PSUBSCRIBE and their messages; * is a pattern, not a channel")
  func messages() throws {
    let daemon = try DaemonProcess().start()
    let driver = try daemon.client()
    _ = try driver.call("SPAWN", "toggle", "t1")
    _ = try driver.call("SPAWN", "toggle", "x")
    let subscriber = try daemon.client()
    try subscriber.send(["SUBSCRIBE", "*", "x"])
    #expect(try subscriber.read() == .array([.bulk("subscribe"), .bulk("*"), .integer(1)]))
    #expect(try subscriber.read() == .array([.bulk("subscribe"), .bulk("x"), .integer(2)]))
    try subscriber.send(["PSUBSCRIBE", "t?"])
    #expect(try subscriber.read() == .array([.bulk("psubscribe"), .bulk("t?"), .integer(3)]))
    _ = try driver.call("SEND", "x", "flip")
    _ = try driver.call("SEND", "t1", "flip")
    // x once (the channel * matches nothing), then t1 through the pattern only (t? is one
    // letter after t: t1 matches).
    #expect(try subscriber.read() == .array([.bulk("message"), .bulk("x"), .bulk("flip off on")]))
    #expect(
      try subscriber.read()
        == .array([.bulk("pmessage"), .bulk("t?"), .bulk("t1"), .bulk("flip off on")]))
    try subscriber.send(["PUNSUBSCRIBE"])
    #expect(try subscriber.read() == .array([.bulk("punsubscribe"), .bulk("t?"), .integer(2)]))
    try subscriber.send(["UNSUBSCRIBE"])
    #expect(try subscriber.read() == .array([.bulk("unsubscribe"), .bulk("*"), .integer(1)]))
    #expect(try subscriber.read() == .array([.bulk("unsubscribe"), .bulk("x"), .integer(0)]))
    // Out of subscribed mode: commands run again.
    #expect(try subscriber.call("STATE", "x") == .bulk("on"))
  }

  @Test("a connection closing on one listener leaves the other listener's subscribers alone")
  func listenersKeepTheirSessions() throws {
    // The soak found it: ids were numbered per listener, so a Unix client and a TCP subscriber
    // could share one, and the Unix client's close dropped the subscriber's subscriptions.
    let daemon = try DaemonProcess(["--listen", "0"]).start()
    let port = try #require(daemon.tcpAddress).port
    var driver: ControlClient? = try daemon.client()
    guard case .integer(let driverID) = try driver!.call("CLIENT", "ID"), driverID <= 20 else {
      Issue.record("no CLIENT ID under 21 for the first Unix client")
      return
    }
    _ = try driver!.call("SPAWN", "toggle", "x")
    var subscribers: [ControlClient] = []
    for _ in 0..<driverID {
      let subscriber = try ControlClient(address: "127.0.0.1:\(port)", timeoutSeconds: 5)
      guard case .integer(let id) = try subscriber.call("CLIENT", "ID") else {
        Issue.record("CLIENT ID over TCP is not an integer")
        return
      }
      #expect(id != driverID, "a TCP client got the Unix client's id \(id)")
      try subscriber.send(["SUBSCRIBE", "x"])
      #expect(try subscriber.read() == .array([.bulk("subscribe"), .bulk("x"), .integer(1)]))
      subscribers.append(subscriber)
    }
    driver = nil  // closes the Unix client
    let publisher = try daemon.client()
    let everyoneElse = "\(subscribers.count + 1)"
    let closed = try daemon.eventually {
      try daemon.stats(on: publisher)["connected_clients"] == everyoneElse
    }
    let stats = try daemon.stats(on: publisher)
    #expect(closed, "after the Unix client closed: \(stats)")
    #expect(stats["pubsub_clients"] == "\(subscribers.count)")
    _ = try publisher.call("SEND", "x", "flip")
    let message = RESPValue.array([.bulk("message"), .bulk("x"), .bulk("flip off on")])
    for subscriber in subscribers { #expect(try subscriber.read() == message) }
  }

  @Test("each listener gets its pattern, in its protocol version")
  func patternsAndVersions() throws {
    let daemon = try DaemonProcess().start()
    let driver = try daemon.client()
    _ = try driver.call("SPAWN", "toggle", "c")
    let first = try daemon.client()
    let second = try daemon.client()
    try second.hello(protocol: .resp3)
    let third = try daemon.client()
    for (client, pattern) in [(first, "c*"), (second, "c*"), (third, "?")] {
      try client.send(["PSUBSCRIBE", pattern])
      _ = try client.read()
    }
    _ = try driver.call("SEND", "c", "flip")
    let message: (String) -> [RESPValue] = {
      [.bulk("pmessage"), .bulk($0), .bulk("c"), .bulk("flip off on")]
    }
    #expect(try first.read() == .array(message("c*")))
    #expect(try second.read() == .push(message("c*")))
    #expect(try third.read() == .array(message("?")))
  }

  @Test("subscribed mode accepts only pub/sub commands, PING, QUIT and RESET")
  func subscribedMode() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    // A bare UNSUBSCRIBE with nothing subscribed is answered (a null name, count 0).
    #expect(
      try client.call("UNSUBSCRIBE") == .array([.bulk("unsubscribe"), .bulk(nil), .integer(0)]))
    _ = try client.call("SUBSCRIBE", "a")
    #expect(try client.call("PING") == .array([.bulk("pong"), .bulk("")]))
    #expect(try client.call("PING", "hi") == .array([.bulk("pong"), .bulk("hi")]))
    #expect(
      try client.call("STATE", "a")
        == .error(
          "ERR Can't execute 'state': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
        ))
    #expect(try client.call("RESET") == .simple("RESET"))
    #expect(try client.call("PING") == .simple("PONG"))
  }
}

/// RESP3 after `HELLO 3`: maps, nulls, verbatim text and pub/sub messages as push frames.
@Suite("RESP3")
struct RESP3Tests {
  @Test("HELLO 3 switches the connection to RESP3; replies keep their meaning")
  func resp3() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    let hello = try client.hello(protocol: .resp3)
    guard case .map = hello else {
      Issue.record("HELLO 3 answered \(hello)")
      return
    }
    #expect(hello["proto"] == .integer(3))
    #expect(hello["server"] == .bulk("millraced"))
    #expect(try client.call("SPAWN", "counter", "c") == .simple("OK"))
    #expect(try client.call("SEND", "c", "inc").strings == ["0", "1"])
    #expect(try client.call("CLIENT", "GETNAME") == .null)
    guard case .verbatim(_, let info) = try client.call("INFO", "keyspace") else {
      Issue.record("INFO is not verbatim text in RESP3")
      return
    }
    #expect(info.contains("db0:keys=1"))
    let listener = try daemon.client()
    try listener.hello(protocol: .resp3)
    try listener.send(["PSUBSCRIBE", "c*"])
    #expect(try listener.readPush() == .push([.bulk("psubscribe"), .bulk("c*"), .integer(1)]))
    // RESP3 has no subscribed mode: other commands still run.
    #expect(try listener.call("STATE", "c") == .bulk("1"))
    _ = try client.call("SEND", "c", "inc")
    #expect(
      try listener.readPush()
        == .push([.bulk("pmessage"), .bulk("c*"), .bulk("c"), .bulk("inc 1 2")]))
  }
}
