import Foundation
import MillraceClient
import Testing

/// A timer the runtime drops for lack of room is never silent (DESIGN §1): the `SEND` or
/// `SPAWN` whose transition started it is answered `-OVERFLOW`, naming the machine and the
/// limit, instead of its usual reply; the change itself is made; `INFO` counts it. Both with
/// replies held for the commit (`batched`) and written as they are made (`none`).
@Suite("Overflow answered to the client", .serialized)
struct OverflowReplyTests {
  /// A daemon with room for two timers, serving the shipped `door` (whose `open` starts an
  /// `after 5s`), the `ticker` (`DaemonProcess.ticker`) and the `circuit-breaker` (whose
  /// initial state starts an `every` on entry).
  static func daemon(_ durability: String, limits: [String] = ["--max-timers", "2"]) throws
    -> (DaemonProcess, ControlClient)
  {
    let daemon = DaemonProcess(limits + ["--durability", durability])
    let examples = DaemonProcess.repository + "/examples/machines/"
    try daemon.serveMachineFiles([
      "door.json": try String(contentsOfFile: examples + "door.json", encoding: .utf8),
      "circuit-breaker.json": try String(
        contentsOfFile: examples + "circuit-breaker.json", encoding: .utf8),
      "ticker.json": DaemonProcess.ticker, "relay.json": relay, "twice.json": twice,
    ])
    try daemon.start()
    return (daemon, try daemon.client())
  }

  /// A kind whose `poke` sends itself two `tock`s: with room for one queued input, the second
  /// is dropped.
  static let twice = """
    { "kind": "twice", "initial": "idle",
      "transitions": [
        { "on": "poke", "from": "idle", "effects": [ { "send": "tock" }, { "send": "tock" } ] },
        { "on": "tock", "from": "idle" } ] }
    """

  /// A kind whose `go` starts a short timer, whose input starts three long ones: a transition
  /// no client waits for.
  static let relay = """
    { "kind": "relay", "initial": "a",
      "transitions": [
        { "on": "go", "from": "a", "to": "b",
          "effects": [ { "after": "100ms", "send": "next" } ] },
        { "on": "next", "from": "b", "to": "c",
          "effects": [ { "after": "1h", "send": "never" }, { "after": "2h", "send": "never" },
                       { "after": "3h", "send": "never" } ] },
        { "on": "never", "from": "c" }, { "on": "reset", "from": "c", "to": "a" } ] }
    """

  static func overflowCount(_ client: ControlClient, _ cause: String = "timers") throws -> String? {
    let field = "overflow_\(cause):"
    let info = try client.call("INFO", "millrace").string ?? ""
    return info.split(separator: "\r\n").first { $0.hasPrefix(field) }
      .map { String($0.dropFirst(field.count)) }
  }

  @Test(
    "a SEND whose timer finds the table full is answered -OVERFLOW; its change is made",
    arguments: ["none", "batched"])
  func sendAnsweredOverflow(durability: String) throws {
    let (daemon, client) = try Self.daemon(durability)
    for name in ["d1", "d2", "d3"] {
      #expect(try client.call("SPAWN", "door", name) == .simple("OK"))
    }
    #expect(try client.call("SEND", "d1", "open").strings == ["closed", "opened"])
    #expect(try client.call("SEND", "d2", "open").strings == ["closed", "opened"])
    let refused = try client.call("SEND", "d3", "open")
    #expect(refused.errorCode == "OVERFLOW")
    let text = refused.description
    #expect(text.contains("machine d3") && text.contains("--max-timers 2"), "\(text)")
    #expect(try client.call("STATE", "d3") == .bulk("opened"))
    #expect(try Self.overflowCount(client) == "1")
    // Answered to the client, so not logged.
    #expect(!daemon.logText.contains("overflow:"), "\(daemon.logText)")
    // A timer freed, the next one fits.
    #expect(try client.call("SEND", "d1", "close").strings == ["opened", "closed"])
    #expect(try client.call("SEND", "d3", "close").strings == ["opened", "closed"])
    #expect(try client.call("SEND", "d3", "open").strings == ["closed", "opened"])
    #expect(try Self.overflowCount(client) == "1")
  }

  @Test(
    "an overflowing SEND's answer keeps its place among the replies pipelined around it",
    arguments: ["none", "batched"])
  func pipelinedOrder(durability: String) throws {
    let (daemon, client) = try Self.daemon(durability)
    defer { withExtendedLifetime(daemon) {} }
    #expect(try client.call("SPAWN", "ticker", "t") == .simple("OK"))
    for name in ["d1", "d2", "d3"] {
      #expect(try client.call("SPAWN", "door", name) == .simple("OK"))
    }
    #expect(try client.call("SEND", "d1", "open").strings == ["closed", "opened"])
    #expect(try client.call("SEND", "d2", "open").strings == ["closed", "opened"])
    // `poke` leaves an input queued: the SEND behind it waits in the queue, the PING behind
    // that is answered at once and waits behind the SEND's place; the SEND's answer then goes
    // out with the PING's right behind it, and is replaced there.
    let requests = [
      ["SEND", "t", "poke"], ["SEND", "d3", "open"], ["PING"], ["SEND", "d1", "close"],
      ["PING"],
    ]
    for words in requests { try client.send(words) }
    let replies = try requests.map { _ in try client.read() }
    #expect(replies[0].strings == ["idle", "idle"])
    #expect(replies[1].errorCode == "OVERFLOW", "\(replies[1])")
    #expect(replies[2] == .simple("PONG"))
    #expect(replies[3].strings == ["opened", "closed"])
    #expect(replies[4] == .simple("PONG"))
    #expect(try client.call("STATE", "d3") == .bulk("opened"))
    // Now the SEND is answered while the one before it (the second `poke`, queued behind the
    // first one's `tock`) still waits: its answer waits in its own place, replaced there.
    #expect(try client.call("SEND", "d1", "open").strings == ["closed", "opened"])
    let waiting = [
      ["SEND", "d3", "close"], ["SEND", "t", "poke"], ["SEND", "t", "poke"],
      ["SEND", "d3", "open"], ["PING"],
    ]
    for words in waiting { try client.send(words) }
    let answers = try waiting.map { _ in try client.read() }
    #expect(answers[0].strings == ["opened", "closed"])
    #expect(answers[1].strings == ["idle", "idle"])
    #expect(answers[2].strings == ["idle", "idle"])
    #expect(answers[3].errorCode == "OVERFLOW", "\(answers[3])")
    #expect(answers[4] == .simple("PONG"))
    #expect(try Self.overflowCount(client) == "2")
  }

  @Test("a SPAWN whose initial state's timer finds the table full is answered -OVERFLOW")
  func spawnAnsweredOverflow() throws {
    let (daemon, client) = try Self.daemon("batched")
    defer { withExtendedLifetime(daemon) {} }
    #expect(try client.call("SPAWN", "circuit-breaker", "b1") == .simple("OK"))
    #expect(try client.call("SPAWN", "circuit-breaker", "b2") == .simple("OK"))
    let refused = try client.call("SPAWN", "circuit-breaker", "b3")
    #expect(refused.errorCode == "OVERFLOW", "\(refused)")
    #expect(try client.call("STATE", "b3") == .bulk("closed"))
    #expect(try Self.overflowCount(client) == "1")
  }

  @Test("inside EXEC the SEND's element of the reply is the error; a timer's drop is logged")
  func execAndLog() throws {
    let (daemon, client) = try Self.daemon("batched")
    for name in ["d1", "d2", "d3", "d4"] {
      #expect(try client.call("SPAWN", "door", name) == .simple("OK"))
    }
    #expect(try client.call("SEND", "d1", "open").strings == ["closed", "opened"])
    #expect(try client.call("SEND", "d2", "open").strings == ["closed", "opened"])
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "d3", "open") == .simple("QUEUED"))
    #expect(try client.call("PING") == .simple("QUEUED"))
    let replies = try client.call("EXEC").elements
    #expect(replies?.count == 2)
    #expect(replies?.first?.errorCode == "OVERFLOW", "\(String(describing: replies))")
    #expect(replies?.last == .simple("PONG"))
    #expect(try Self.overflowCount(client) == "1")
    #expect(!daemon.logText.contains("overflow:"), "\(daemon.logText)")
  }

  @Test("a timer dropped by a transition no client waits for is logged, naming the machine")
  func timerInputLogsOverflow() throws {
    let (daemon, client) = try Self.daemon("none")
    #expect(try client.call("SPAWN", "relay", "r1") == .simple("OK"))
    #expect(try client.call("SPAWN", "door", "d1") == .simple("OK"))
    #expect(try client.call("SEND", "r1", "go").strings == ["a", "b"])
    #expect(try client.call("SEND", "d1", "open").strings == ["closed", "opened"])
    // At 100 ms `next` fires (its slot freed) and starts three timers: the second and third
    // find none, and the second's line stands for both (one line a second at most).
    var logged: [Substring] = []
    for _ in 0..<100 where logged.isEmpty {
      usleep(20_000)
      logged = daemon.logText.split(separator: "\n").filter { $0.contains("overflow:") }
    }
    #expect(logged.count == 1 && logged.first?.contains("machine r1") == true, "\(logged)")
    #expect(try client.call("STATE", "r1") == .bulk("c"))
    #expect(try Self.overflowCount(client) == "2")
    #expect(daemon.logText.split(separator: "\n").filter { $0.contains("overflow:") }.count == 1)
  }

  @Test("a SEND whose effect finds no free effect slot is answered -OVERFLOW")
  func effectSlotAnsweredOverflow() throws {
    let (daemon, client) = try Self.daemon("none", limits: ["--max-effects", "2"])
    defer { withExtendedLifetime(daemon) {} }
    for name in ["d1", "d2", "d3"] {
      #expect(try client.call("SPAWN", "door", name) == .simple("OK"))
    }
    #expect(try client.call("SEND", "d1", "open").strings == ["closed", "opened"])
    #expect(try client.call("SEND", "d2", "open").strings == ["closed", "opened"])
    let refused = try client.call("SEND", "d3", "open")
    #expect(refused.errorCode == "OVERFLOW", "\(refused)")
    #expect(refused.description.contains("--max-effects"), "\(refused)")
    #expect(try Self.overflowCount(client, "effects") == "1")
  }

  @Test("a SEND whose transition sends an input to a full queue is answered -OVERFLOW")
  func sentInputAnsweredOverflow() throws {
    let (daemon, client) = try Self.daemon("batched", limits: ["--queue-capacity", "1"])
    defer { withExtendedLifetime(daemon) {} }
    #expect(try client.call("SPAWN", "twice", "w") == .simple("OK"))
    let refused = try client.call("SEND", "w", "poke")
    #expect(refused.errorCode == "OVERFLOW", "\(refused)")
    #expect(refused.description.contains("machine w"), "\(refused)")
    #expect(try Self.overflowCount(client, "inputs") == "1")
    #expect(!daemon.logText.contains("overflow:"), "\(daemon.logText)")
  }
}
