import Foundation
import MillraceClient
import Testing

/// Definition changes through the real daemon (DESIGN §4.2, last paragraph; §4.4): a reload
/// or a start never loses a machine silently, `migrate` moves machines and keeps their timers,
/// `--drop-unmappable` drops and says how many, a store over capacity refuses to start.
@Suite("Definition changes and restore capacity")
struct DefinitionChangeTests {
  /// A door machine file with `rows` (JSON list items).
  static func doorFile(_ rows: String) -> String {
    #"{ "kind": "door", "initial": "closed", "transitions": [ \#(rows) ] }"#
  }
  /// `open` closes the door itself after 700 ms, `prop` after an hour.
  static let timerRows = """
    { "on": "open", "from": "closed", "to": "opened",
      "effects": [ { "after": "700ms", "send": "autoClose" } ] },
    { "on": "prop", "from": "closed", "to": "propped",
      "effects": [ { "after": "1h", "send": "autoClose" } ] },
    { "on": "autoClose", "from": ["opened", "propped"], "to": "closed" }
    """
  /// The first door: its timers, and a `locked` state.
  static let door = doorFile(
    timerRows + """
      , { "on": "lock", "from": "closed", "to": "locked" },
      { "on": "unlock", "from": "locked", "to": "closed" }
      """)
  /// `door` with `closed` renamed `shut` and `autoClose` renamed `timeout`, mapped by
  /// `migrate` (or not, when `migrate` is false).
  static func renamedDoor(migrate: Bool = true) -> String {
    let mapping =
      #""migrate": { "states": { "closed": "shut" }, "inputs": { "autoClose": "timeout" } },"#
    return door.replacingOccurrences(of: "closed", with: "shut")
      .replacingOccurrences(of: "autoClose", with: "timeout")
      .replacingOccurrences(of: #"{ "kind""#, with: "{ \(migrate ? mapping : "") \"kind\"")
  }
  /// `door` without the `locked` state (and its inputs).
  static let doorWithoutLock = doorFile(timerRows)
  /// `door` without `locked` and without the timers' input `autoClose`.
  static let doorWithoutLockOrTimer = doorFile(
    """
    { "on": "open", "from": "closed", "to": "opened" },
    { "on": "prop", "from": "closed", "to": "propped" },
    { "on": "close", "from": ["opened", "propped"], "to": "closed" }
    """)

  /// A daemon serving `door` (from its own machines directory) with a store.
  func daemon() throws -> DaemonProcess {
    let daemon = DaemonProcess()
    let machines = daemon.directory + "/machines"
    try FileManager.default.createDirectory(atPath: machines, withIntermediateDirectories: true)
    let index = try #require(daemon.arguments.firstIndex(of: "--machines"))
    daemon.arguments[index + 1] = machines
    try daemon.writeDoor(Self.door)
    return daemon
  }

  /// Spawns `door`s named `names` and sends each `input` (if any) on one connection.
  func spawn(_ names: [String], sending input: String? = nil, on daemon: DaemonProcess) throws {
    let client = try daemon.client()
    for name in names {
      #expect(try client.call("SPAWN", "door", name) == .simple("OK"))
      if let input { #expect(try client.call("SEND", name, input).strings?.count == 2) }
    }
  }

  @Test("a reload that removes a state in use is refused; the machine and old file stay")
  func reloadRemovingAStateIsRefused() throws {
    let daemon = try daemon().start()
    try spawn(["d1", "d2"], sending: "lock", on: daemon)
    try daemon.writeDoor(Self.doorWithoutLock)
    let logged = daemon.logText.utf8.count
    kill(daemon.pid, SIGHUP)
    #expect(daemon.waitForLog("reload refused", after: logged))
    let log = daemon.logText
    #expect(log.contains(#"kind "door" has no state "locked"; 2 machines: d1, d2 in that state"#))
    #expect(log.contains("error"))
    let client = try daemon.client()
    #expect(try client.call("STATE", "d1") == .bulk("locked"))
    #expect(try client.call("SPAWN", "door", "d3") == .simple("OK"))
    #expect(try client.call("SEND", "d3", "lock").strings == ["closed", "locked"])
  }

  @Test("a start whose file lacks a stored state or timer input fails and leaves the store")
  func startLackingAStateFails() throws {
    let daemon = try daemon().start()
    try spawn(["d1"], on: daemon)
    try spawn(["d2", "d3", "d4"], sending: "lock", on: daemon)
    try spawn(["d5"], sending: "prop", on: daemon)
    #expect(daemon.stop() == 0)
    try daemon.writeDoor(Self.doorWithoutLockOrTimer)
    let logged = daemon.logText.utf8.count
    let status = try daemon.startExpectingExit()
    #expect(status != nil && status != 0)
    let log = String(daemon.logText.utf8.dropFirst(logged)) ?? ""
    #expect(
      log.contains(#"kind "door" has no state "locked"; 3 machines: d2, d3, d4 in that state"#))
    #expect(
      log.contains(
        #"kind "door" has no input "autoClose"; 1 machine: d5 with a pending timer that sends it"#))
    #expect(log.contains("--drop-unmappable"))
    try daemon.writeDoor(Self.door)
    try daemon.start()
    let client = try daemon.client()
    for (name, state) in [("d1", "closed"), ("d2", "locked"), ("d4", "locked"), ("d5", "propped")] {
      #expect(try client.call("STATE", name) == .bulk(state))
    }
  }

  @Test("--drop-unmappable drops what cannot be mapped, says how many, and cleans the store")
  func dropFlagDrops() throws {
    let daemon = try daemon().start()
    try spawn(["d1"], on: daemon)
    try spawn(["d2", "d3"], sending: "lock", on: daemon)
    try spawn(["d4"], sending: "prop", on: daemon)
    #expect(daemon.stop() == 0)
    try daemon.writeDoor(Self.doorWithoutLockOrTimer)
    daemon.arguments.append("--drop-unmappable")
    try daemon.start()
    #expect(
      daemon.logText.contains(
        "--drop-unmappable: dropped 2 machines: d2, d3 (kind or state gone) and 1 timers "
          + "(input or queue gone) of d4"))
    let client = try daemon.client()
    #expect(try client.call("STATE", "d2").errorCode == "NOMACHINE")
    #expect(try client.call("STATE", "d4") == .bulk("propped"))
    #expect(daemon.stop() == 0)
    daemon.arguments.removeLast()
    try daemon.start()
    #expect(try daemon.client().call("STATE", "d1") == .bulk("closed"))
  }

  @Test("a reload with migrate moves live machines; a renamed timer input still fires")
  func reloadWithMigrateMoves() throws {
    let daemon = try daemon().start()
    let watcher = try ControlClient(address: daemon.socketPath, timeoutSeconds: 5)
    _ = try watcher.call("SUBSCRIBE", "d1")
    try spawn(["d2"], on: daemon)
    let opened = Date()
    try spawn(["d1"], sending: "open", on: daemon)
    try daemon.writeDoor(Self.renamedDoor())
    let logged = daemon.logText.utf8.count
    kill(daemon.pid, SIGHUP)
    #expect(daemon.waitForLog("reloaded machine files", after: logged))
    // No traffic until the timer is due: the watcher only reads.
    var messages: [String] = []
    while messages.count < 2 {
      guard let parts = try watcher.read().strings, parts.first == "message" else { continue }
      messages.append(parts.dropFirst().joined(separator: ": "))
    }
    #expect(messages == ["d1: open closed opened", "d1: timeout opened shut"])
    #expect(Date().timeIntervalSince(opened) >= 0.65)
    let client = try daemon.client()
    #expect(try client.call("STATE", "d2") == .bulk("shut"))
    #expect(try client.call("SEND", "d2", "lock").strings == ["shut", "locked"])
  }

  @Test("a restart with migrate restores stored machines mapped; SPAWN of a stored name fails")
  func restartWithMigrateMaps() throws {
    let daemon = try daemon().start()
    try spawn(["d1"], on: daemon)
    try spawn(["d2"], sending: "prop", on: daemon)
    #expect(daemon.stop() == 0)
    try daemon.writeDoor(Self.renamedDoor())
    try daemon.start()
    #expect(daemon.logText.contains("through \"migrate\": 2 machines: d1, d2"))
    let client = try daemon.client()
    #expect(try client.call("STATE", "d1") == .bulk("shut"))
    #expect(try client.call("STATE", "d2") == .bulk("propped"))
    #expect(try client.call("SPAWN", "door", "d1").errorCode == "EXISTS")
    #expect(daemon.stop() == 0)
    // The store holds the new names now: the file without `migrate` restores them as they are
    // (the pending timer's input included).
    try daemon.writeDoor(Self.renamedDoor(migrate: false))
    try daemon.start()
    #expect(try daemon.client().call("STATE", "d1") == .bulk("shut"))
  }

  @Test("a store over --max-machines, --max-timers or --max-effects refuses to start, at once")
  func restoreOverCapacityRefuses() throws {
    let daemon = try daemon().start()
    try spawn(["d1", "d2"], on: daemon)
    try spawn(["d3", "d4", "d5"], sending: "prop", on: daemon)
    #expect(daemon.stop() == 0)
    let arguments = daemon.arguments
    for (flag, limit, stored) in [
      ("--max-machines", "3", "5 machines"), ("--max-timers", "2", "3 pending timers"),
      ("--max-effects", "2", "3 pending timers"),
    ] {
      daemon.arguments = arguments + [flag, limit]
      let logged = daemon.logText.utf8.count
      let status = try daemon.startExpectingExit()
      #expect(status != nil && status != 0)
      let log = String(daemon.logText.utf8.dropFirst(logged)) ?? ""
      #expect(log.contains("the store holds \(stored)") || log.contains("have \(stored)"))
      #expect(log.contains("start with \(flag)"))
      #expect(!log.contains("d4"))
    }
    daemon.arguments = arguments
    try daemon.start()
    #expect(try daemon.client().call("STATE", "d5") == .bulk("propped"))
  }
}

extension DaemonProcess {
  /// Replaces the machine file `door.json` of the daemon's machines directory.
  func writeDoor(_ json: String) throws {
    let index = arguments.firstIndex(of: "--machines")! + 1
    try json.write(toFile: arguments[index] + "/door.json", atomically: true, encoding: .utf8)
  }

  /// Polls the log (no traffic to the daemon) every 20 ms for up to `seconds` until the part
  /// written after byte `offset` contains `text`.
  func waitForLog(_ text: String, after offset: Int, seconds: Double = 5) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
      if (String(logText.utf8.dropFirst(offset)) ?? "").contains(text) { return true }
      usleep(20_000)
    } while Date() < deadline
    return false
  }

  /// Starts the daemon expecting it to refuse to start: waits up to `seconds` for it to exit
  /// and returns its status, or stops it and returns nil when it kept running.
  func startExpectingExit(seconds: Double = 10) throws -> Int32? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.product("millraced"))
    process.arguments = arguments
    var variables = ProcessInfo.processInfo.environment
    variables["NOTIFY_SOCKET"] = nil
    process.environment = variables
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    handle.seekToEndOfFile()
    process.standardError = handle
    process.standardOutput = handle
    try process.run()
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    guard !process.isRunning else {
      process.terminate()
      process.waitUntilExit()
      return nil
    }
    return process.terminationStatus
  }
}
