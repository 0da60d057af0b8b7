import Foundation
import MillraceClient
import Testing

/// The connection commands every client library sends, and the introspection tools read.
@Suite("Connection and introspection commands")
struct ConnectionCommandTests {
  @Test("HELLO, CLIENT, SELECT, ECHO, RESET")
  func connection() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    guard case .array(let hello?) = try client.call("HELLO", "2", "SETNAME", "tester") else {
      Issue.record("HELLO 2 is not a flat map")
      return
    }
    #expect(hello.count == 14)
    #expect(hello.first == .bulk("server") && hello[1] == .bulk("millraced"))
    #expect(hello[4] == .bulk("proto") && hello[5] == .integer(2))
    #expect(try client.call("HELLO", "4") == .error("NOPROTO unsupported protocol version"))
    #expect(try client.call("CLIENT", "GETNAME") == .bulk("tester"))
    guard case .integer(let id) = try client.call("CLIENT", "ID") else {
      Issue.record("CLIENT ID is not an integer")
      return
    }
    #expect(try client.call("CLIENT", "SETINFO", "LIB-NAME", "swift") == .simple("OK"))
    #expect(try client.call("CLIENT", "SETINFO", "LIB-VER", "1.0") == .simple("OK"))
    #expect(try client.call("CLIENT", "SETNAME", "a b").errorCode == "ERR")
    #expect(try client.call("CLIENT", "NO-EVICT", "on") == .simple("OK"))
    guard case .bulk(let info?) = try client.call("CLIENT", "INFO") else {
      Issue.record("CLIENT INFO is not a bulk string")
      return
    }
    #expect(
      info.hasPrefix("id=\(id) ") && info.contains(" name=tester ")
        && info.contains(" lib-name=swift "))
    let other = try daemon.client()
    guard case .bulk(let list?) = try other.call("CLIENT", "LIST") else {
      Issue.record("CLIENT LIST is not a bulk string")
      return
    }
    #expect(list.split(separator: "\n").count == 2)
    #expect(try other.call("CLIENT", "KILL", "ID", "\(id)") == .integer(1))
    #expect(throws: ControlClient.Failure.self) { try client.call("PING") }
    // The old form names an address, as CLIENT LIST shows it, and closes the oldest client
    // there (on a Unix socket every client has the same address): `other`, not `third`.
    let third = try daemon.client()
    guard case .bulk(let line?) = try third.call("CLIENT", "INFO"),
      let address = line.split(separator: " ").first(where: { $0.hasPrefix("addr=") })?.dropFirst(5)
    else {
      Issue.record("CLIENT INFO has no addr")
      return
    }
    #expect(try third.call("CLIENT", "KILL", String(address)) == .simple("OK"))
    #expect(throws: ControlClient.Failure.self) { try other.call("PING") }
    #expect(try third.call("CLIENT", "KILL", "nowhere:1") == .error("ERR No such client"))
    #expect(try third.call("SELECT", "0") == .simple("OK"))
    #expect(try third.call("SELECT", "1").errorCode == "ERR")
    #expect(try third.call("ECHO", "hello world") == .bulk("hello world"))
    _ = try third.call("MULTI")
    #expect(try third.call("RESET") == .simple("RESET"))
    #expect(try third.call("EXEC") == .error("ERR EXEC without MULTI"))
  }

  @Test("with a token: HELLO authenticates as Redis's default user; RESET forgets it")
  func helloAuth() throws {
    let daemon = try DaemonProcess(["--token", "s3cret"]).start()
    let client = try daemon.client()
    #expect(try client.call("HELLO", "3").errorCode == "NOAUTH")
    #expect(try client.call("HELLO", "3", "AUTH", "default", "nope").errorCode == "WRONGPASS")
    #expect(try client.call("HELLO", "3", "AUTH", "someone", "s3cret").errorCode == "WRONGPASS")
    #expect(try client.call("PING").errorCode == "NOAUTH")
    let hello = try client.call("HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "me")
    #expect(hello["proto"] == .integer(3), "\(hello)")
    #expect(try client.call("CLIENT", "GETNAME") == .bulk("me"))
    #expect(try client.call("RESET") == .simple("RESET"))
    #expect(try client.call("PING").errorCode == "NOAUTH")
    #expect(try client.call("AUTH", "default", "s3cret") == .simple("OK"))
    #expect(try client.call("PING") == .simple("PONG"))
    // RESET went back to RESP2: a map is a flat array again.
    guard case .array(let flat?) = try client.call("HELLO") else {
      Issue.record("HELLO after RESET is not a RESP2 array")
      return
    }
    #expect(flat.count == 14)
  }

  @Test("INFO in Redis's format, with the daemon's sections; STATS is its alias")
  func info() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "counter", "c")
    _ = try client.call("SPAWN", "door", "d")
    guard case .bulk(let all?) = try client.call("INFO") else {
      Issue.record("INFO is not a bulk string")
      return
    }
    for header in [
      "# Server", "# Clients", "# Memory", "# Persistence", "# Stats", "# Keyspace", "# Machines",
      "# Millrace",
    ] {
      #expect(all.contains(header + "\r\n"), "\(header)")
    }
    #expect(!all.contains("# Commandstats"))
    #expect(all.contains("db0:keys=2,expires=0,avg_ttl=0\r\n"))
    #expect(all.contains("counter:machines=1\r\n") && all.contains("door:machines=1\r\n"))
    _ = try client.call("KILL", "d")
    guard case .bulk(let machines?) = try client.call("INFO", "machines") else {
      Issue.record("INFO machines is not a bulk string")
      return
    }
    #expect(machines.contains("counter:machines=1\r\n") && machines.contains("door:machines=0\r\n"))
    let fields = try daemon.stats(on: client)
    for field in [
      "connected_clients", "used_memory", "total_commands_processed", "uptime_in_seconds",
    ] {
      #expect(Int(fields[field] ?? "") != nil, "\(field): \(fields[field] ?? "missing")")
    }
    guard case .bulk(let clients?) = try client.call("INFO", "clients", "commandstats") else {
      Issue.record("INFO clients is not a bulk string")
      return
    }
    #expect(clients.hasPrefix("# Clients\r\nconnected_clients:1\r\n"))
    #expect(clients.contains("cmdstat_spawn:calls=2,"))
    #expect(!clients.contains("# Server"))
  }

  @Test("COMMAND, COMMAND COUNT / INFO / DOCS / GETKEYS and CONFIG GET")
  func command() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    guard case .array(let all?) = try client.call("COMMAND"),
      case .integer(let count) = try client.call("COMMAND", "COUNT")
    else {
      Issue.record("COMMAND or COMMAND COUNT has the wrong type")
      return
    }
    #expect(all.count == count && count > 20)
    guard case .array(let info?) = try client.call("COMMAND", "INFO", "send", "nope"),
      case .array(let send?) = info.first
    else {
      Issue.record("COMMAND INFO send")
      return
    }
    #expect(info.count == 2 && info[1] == .bulk(nil))
    #expect(send.count == 10)
    #expect(Array(send.prefix(2)) == [.bulk("send"), .integer(-3)])
    #expect(Array(send[3...5]) == [.integer(1), .integer(1), .integer(1)])
    #expect(try client.call("COMMAND", "GETKEYS", "SEND", "c1", "inc").strings == ["c1"])
    #expect(try client.call("COMMAND", "GETKEYS", "SPAWN", "counter", "c2").strings == ["c2"])
    guard case .array(let docs?) = try client.call("COMMAND", "DOCS", "scan") else {
      Issue.record("COMMAND DOCS is not a map")
      return
    }
    #expect(docs.first == .bulk("scan") && docs.count == 2)
    #expect(
      try client.call("CONFIG", "GET", "save", "appendonly").strings?.sorted()
        == ["", "appendonly", "save", "yes"])
    #expect(try client.call("CONFIG", "GET", "*").strings?.contains("maxclients") == true)
    #expect(try client.call("CONFIG", "SET", "x", "y").errorCode == "ERR")
  }

  @Test("SCAN returns every machine once in a quiet iteration; MATCH, TYPE; LIST is bounded")
  func scan() throws {
    let daemon = try DaemonProcess(["--durability", "none"]).start()
    let client = try daemon.client()
    var batch: [UInt8] = []
    for index in 0..<10_001 {
      batch += request(["SPAWN", index % 2 == 0 ? "counter" : "toggle", "m\(index)"])
    }
    try client.sendRaw(batch)
    for _ in 0..<10_001 { _ = try client.read() }
    func scanAll(_ options: [String]) throws -> [String] {
      var cursor = "0"
      var names: [String] = []
      repeat {
        guard case .array(let reply?) = try client.call(["SCAN", cursor] + options),
          reply.count == 2,
          case .bulk(let next?) = reply[0], let page = reply[1].strings
        else {
          Issue.record("SCAN answered in the wrong shape")
          return names
        }
        cursor = next
        names += page
      } while cursor != "0"
      return names
    }
    let all = try scanAll(["COUNT", "500"])
    #expect(all.count == 10_001 && Set(all).count == 10_001)
    // A call stays short whatever COUNT asks (at a million machines COUNT 100000 blocked the
    // loop for 210-490 ms): one page, about 1,000 names, and a cursor to go on from.
    if case .array(let reply?) = try client.call("SCAN", "0", "COUNT", "100000"),
      case .bulk(let next?) = reply[0], let page = reply[1].strings
    {
      #expect(next != "0" && page.count >= 1_000 && page.count < 2_000, "\(page.count)")
    } else {
      Issue.record("SCAN answered in the wrong shape")
    }
    #expect(Set(try scanAll(["COUNT", "100000"])).count == 10_001)
    #expect(
      Set(try scanAll(["MATCH", "m1?", "TYPE", "toggle"])) == ["m11", "m13", "m15", "m17", "m19"])
    #expect(try client.call("SCAN", "x").errorCode == "ERR")
    #expect(try client.call("SCAN", "0", "COUNT", "0").errorCode == "ERR")
    let refused = try client.call("LIST")
    #expect(refused.errorCode == "ERR" && "\(refused)".contains("SCAN"), "\(refused)")
    #expect(try client.call("LIST", "toggle").strings?.count == 5_000)
  }
}
