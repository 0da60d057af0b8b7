import Foundation
import MillraceClient
import Testing

/// Bad input is answered or cut off while other clients carry on (DESIGN §4.1).
@Suite("Hostile clients")
struct HostileClientTests {
  /// A second client that must keep working throughout.
  func bystanderWorks(_ daemon: DaemonProcess) throws -> Bool {
    try daemon.client().call("PING") == .simple("PONG")
  }

  @Test("garbage bytes get -PROTOCOL and the connection is closed")
  func garbage() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    try client.sendRaw(Array("*2\r\n$abc\r\n".utf8))
    #expect(try client.read().errorCode == "PROTOCOL")
    #expect(throws: ControlClient.Failure.self) { try client.read() }
    #expect(try bystanderWorks(daemon))
  }

  @Test("a frame over the limit gets -TOOLONG and the connection is closed")
  func oversizedLine() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    let megabyte = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + [13, 10]
    try? client.sendRaw(megabyte)
    #expect(try client.read().errorCode == "TOOLONG")
    #expect(throws: ControlClient.Failure.self) { try client.read() }
    #expect(try bystanderWorks(daemon))
  }

  @Test("a client that vanishes mid-frame harms nobody")
  func vanishingClient() throws {
    let daemon = try DaemonProcess().start()
    do {
      let client = try daemon.client()
      try client.sendRaw(Array("*3\r\n$4\r\nSEND\r\n$3\r\nabc".utf8))
    }
    #expect(try bystanderWorks(daemon))
    #expect(daemon.isRunning)
  }

  @Test("an unknown command is answered and the connection stays usable")
  func unknownCommand() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    #expect(try client.call("FLUSHALL").errorCode == "ERR")
    #expect(try client.call("PING") == .simple("PONG"))
  }

  @Test("inline commands work for nc and telnet users")
  func inlineCommands() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    try client.sendRaw(Array("SPAWN toggle t\r\nSEND t flip\r\nPING\r\n".utf8))
    #expect(try client.read() == .simple("OK"))
    #expect(try client.read().strings == ["off", "on"])
    #expect(try client.read() == .simple("PONG"))
  }

  @Test("a subscriber that never reads is cut off; the daemon carries on")
  func slowSubscriber() throws {
    let daemon = try DaemonProcess(["--client-buffer-limit", "65536"]).start()
    let subscriber = try daemon.client()
    #expect(try subscriber.call("PSUBSCRIBE", "*").strings?.first == "psubscribe")
    let driver = try daemon.client()
    _ = try driver.call("SPAWN", "toggle", "t")
    var batch: [UInt8] = []
    for _ in 0..<500 { batch += request(["SEND", "t", "flip"]) }
    for _ in 0..<20 {
      try driver.sendRaw(batch)
      for _ in 0..<500 { _ = try driver.read() }
    }
    guard case .bulk(let stats?) = try driver.call("STATS") else {
      Issue.record("no stats")
      return
    }
    #expect(stats.contains("subscriptions:0\r\n"))
    #expect(stats.contains("connected_clients:1\r\n"))
  }

  @Test("inline commands split like Redis (quotes, escapes); unbalanced quotes close")
  func inlineQuotes() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    try client.sendRaw(
      Array("PING \"hello world\"\r\nECHO 'it\\'s'\r\nECHO \"a\\x41\\n\"\r\n".utf8))
    #expect(try client.read() == .bulk("hello world"))
    #expect(try client.read() == .bulk("it's"))
    #expect(try client.read() == .bulk("aA\n"))
    try client.sendRaw(Array("PING \"open\r\n".utf8))
    #expect(try client.read() == .error("PROTOCOL Protocol error: unbalanced quotes in request"))
    #expect(throws: ControlClient.Failure.self) { try client.read() }
  }

  @Test("with a token, commands before AUTH are denied")
  func token() throws {
    let daemon = try DaemonProcess(["--token", "s3cret"]).start()
    let client = try daemon.client()
    #expect(try client.call("LIST").errorCode == "NOAUTH")
    #expect(try client.call("AUTH", "wrong").errorCode == "WRONGPASS")
    #expect(try client.call("AUTH", "s3cret") == .simple("OK"))
    #expect(try client.call("LIST").strings == [])
  }
}
