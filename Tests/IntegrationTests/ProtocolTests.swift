import Foundation
import MillraceClient
import Testing

/// Every command and error code of control protocol v2, against the real daemon.
@Suite("Control protocol")
struct ProtocolTests {
  @Test("every command answers in the documented shape")
  func commands() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    #expect(try client.call("PING") == .simple("PONG"))
    #expect(try client.call("ping", "hello") == .bulk("hello"))
    #expect(try client.call("HELP").strings?.contains { $0.hasPrefix("SEND name input") } == true)
    #expect(
      try client.call("KINDS").strings == [
        "auth", "circuit-breaker", "counter", "door", "login", "media-player", "toggle",
        "traffic-light",
      ])
    #expect(try client.call("SPAWN", "door", "front") == .simple("OK"))
    #expect(try client.call("SPAWN", "door", "back", "locked") == .simple("OK"))
    #expect(try client.call("SEND", "front", "open").strings == ["closed", "opened"])
    #expect(try client.call("STATE", "front") == .bulk("opened"))
    #expect(try client.call("LIST").strings == ["back", "front"])
    #expect(try client.call("LIST", "door").strings == ["back", "front"])
    #expect(try client.call("LIST", "toggle").strings == [])
    #expect(try client.call("KILL", "back") == .simple("OK"))
    #expect(try client.call("LIST").strings == ["front"])
    guard case .bulk(let stats?) = try client.call("STATS") else {
      Issue.record("STATS is not a bulk string")
      return
    }
    #expect(stats.contains("machines:1\r\n"))
    #expect(stats.contains("durability:batched\r\n"))
    #expect(try client.call("QUIT") == .simple("OK"))
    #expect(throws: ControlClient.Failure.self) { try client.call("PING") }
  }

  @Test("every error code is produced where the design says")
  func errorCodes() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "door", "d")
    let cases: [([String], String)] = [
      (["FLY"], "ERR"),
      (["SEND", "d"], "ERR"),
      (["SPAWN", "door", "bad name!"], "ERR"),
      (["SPAWN", "ghost", "g"], "NOKIND"),
      (["SPAWN", "door", "e", "ajar"], "NOSTATE"),
      (["SPAWN", "door", "d"], "EXISTS"),
      (["SEND", "d", "fly"], "NOINPUT"),
      (["SEND", "nobody", "open"], "NOMACHINE"),
      // SEND looks its words up as bytes; the name rule still comes first.
      (["SEND", "d", "fly!"], "ERR"),
      (["SEND", "bad name!", "open"], "ERR"),
      (["SEND", "nobody", "fly!"], "ERR"),
      (["STATE", "nobody"], "NOMACHINE"),
      (["KILL", "nobody"], "NOMACHINE"),
      (["LIST", "ghost"], "NOKIND"),
      (["SEND", "d", "unlock"], "REJECTED"),
      (["AUTH", "secret"], "ERR"),
      (["HELLO", "4"], "NOPROTO"),
      (["EXEC"], "ERR"),
    ]
    for (words, code) in cases {
      let reply = try client.call(words)
      #expect(reply.errorCode == code, "\(words) answered \(reply)")
    }
    #expect(try client.call("SEND", "d", "unlock") == .error("REJECTED unlock in closed"))
    #expect(try client.call("SEND", "d", "fly") == .error("NOINPUT kind door has no input fly"))
    #expect(try client.call("SEND", "nobody", "open") == .error("NOMACHINE no machine nobody"))
    // Redis's wording for the generic errors.
    #expect(
      try client.call("FLY", "a", "b")
        == .error("ERR unknown command 'FLY', with args beginning with: 'a' 'b' "))
    #expect(
      try client.call("SEND", "d") == .error("ERR wrong number of arguments for 'send' command"))
    #expect(
      try client.call("CLIENT", "nope")
        == .error("ERR unknown subcommand 'nope'. Try CLIENT HELP."))
    #expect(try client.call("STATE", "d") == .bulk("closed"))
  }

  @Test("a full machine queue answers busy and changes nothing")
  func busy() throws {
    let (daemon, client) = try DaemonProcess.withTicker([
      "--queue-capacity", "4", "--when-full", "busy",
    ])
    try client.sendRaw(pokedIncrements(50))
    var accepted = 0
    var busy = 0
    for _ in 0..<50 {
      let poke = try client.read()
      #expect(poke.strings == ["idle", "idle"] || poke.errorCode == "BUSY")
      let reply = try client.read()
      if reply.errorCode == "BUSY" { busy += 1 } else if reply.strings?.count == 2 { accepted += 1 }
    }
    #expect(busy > 0)
    #expect(accepted + busy == 50)
    #expect(try client.call("STATE", "c") == .bulk("\(accepted)"))
    #expect(daemon.isRunning)
  }

  @Test("by default a full queue pauses the client instead: nothing is lost")
  func backPressure() throws {
    let (daemon, client) = try DaemonProcess.withTicker(["--queue-capacity", "4"])
    try client.sendRaw(pokedIncrements(50))
    for step in 0..<50 {
      #expect(try client.read().strings == ["idle", "idle"])
      #expect(try client.read().strings == ["\(step)", "\(step + 1)"])
    }
    #expect(try client.call("STATE", "c") == .bulk("50"))
    #expect(daemon.isRunning)
  }

  @Test(
    "1,000 pipelined commands are answered in order",
    arguments: ["batched", "none"])
  func pipelining(durability: String) throws {
    // Without a store, SEND replies are written as their inputs are processed while SPAWN's
    // OK waits for the turn's end: the reply order must not show it.
    let daemon = try DaemonProcess(["--durability", durability]).start()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "counter", "c")
    func command(_ index: Int) -> [String] {
      if index % 100 == 50 { return ["SPAWN", "toggle", "t\(index)"] }
      return index % 4 == 3 ? ["PING", "p\(index)"] : ["SEND", "c", "inc"]
    }
    var batch: [UInt8] = []
    for index in 0..<1_000 { batch += request(command(index)) }
    try client.sendRaw(batch)
    var count = 0
    for index in 0..<1_000 {
      let reply = try client.read()
      switch command(index)[0] {
      case "SPAWN": #expect(reply == .simple("OK"), "\(index)")
      case "PING": #expect(reply == .bulk("p\(index)"))
      default:
        #expect(reply.strings == ["\(count)", "\(count + 1)"])
        count += 1
      }
    }
    #expect(count == 740)
  }

  @Test("200 concurrent clients each drive their own machine without loss or disorder")
  func concurrentClients() throws {
    let daemon = try DaemonProcess().start()
    let failures = Failures()
    let group = DispatchGroup()
    let socketPath = daemon.socketPath
    for client in 0..<200 {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        do {
          let connection = try ControlClient(address: socketPath, timeoutSeconds: 20)
          guard try connection.call("SPAWN", "counter", "c\(client)") == .simple("OK") else {
            return failures.add("spawn c\(client)")
          }
          var batch: [UInt8] = []
          for _ in 0..<25 { batch += request(["SEND", "c\(client)", "inc"]) }
          try connection.sendRaw(batch)
          for step in 0..<25 {
            let reply = try connection.read()
            if reply.strings != ["\(step)", "\(step + 1)"] {
              return failures.add("c\(client) step \(step): \(reply)")
            }
          }
        } catch {
          failures.add("client \(client): \(error)")
        }
      }
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    #expect(failures.all == [])
    let check = try daemon.client()
    #expect(try check.call("LIST").strings?.count == 200)
    #expect(try check.call("STATE", "c199") == .bulk("25"))
  }

  @Test("redis-cli is a real client")
  func redisCLI() throws {
    let daemon = try DaemonProcess().start()
    #expect(try daemon.redisCLI("PING") == "PONG\n")
    #expect(try daemon.redisCLI("SPAWN", "door", "door") == "OK\n")
    #expect(try daemon.redisCLI("SEND", "door", "open") == "closed\nopened\n")
    #expect(try daemon.redisCLI("SEND", "door", "lock").hasPrefix("REJECTED lock in opened\n"))
    #expect(try daemon.redisCLI("STATE", "door") == "opened\n")
  }
}

/// `count` pipelined pairs of `SEND t poke` and `SEND c inc` (`DaemonProcess.withTicker`): each
/// `inc` arrives with an input of `t` queued, so it queues too and a pipeline can fill `c`'s
/// queue. Each pair is answered with two replies.
func pokedIncrements(_ count: Int) -> [UInt8] {
  Array(repeating: request(["SEND", "t", "poke"]) + request(["SEND", "c", "inc"]), count: count)
    .flatMap { $0 }
}

/// Bytes of one RESP request.
func request(_ words: [String]) -> [UInt8] {
  var bytes = Array("*\(words.count)\r\n".utf8)
  for word in words {
    bytes += Array("$\(word.utf8.count)\r\n".utf8) + Array(word.utf8) + [13, 10]
  }
  return bytes
}

/// Failures collected from client threads.
final class Failures: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []
  func add(_ message: String) { lock.withLock { messages.append(message) } }
  var all: [String] { lock.withLock { messages } }
}
