import Foundation
import MillraceClient
import MillraceHost
import Testing

/// Timers, durability and lifecycle through the real daemon (DESIGN §4.4, §4.5).
@Suite("Timers, durability and lifecycle")
struct DurabilityTests {
  /// Polls `STATE name` until it is `expected` or `seconds` pass.
  func waitForState(
    _ client: ControlClient, _ name: String, _ expected: String, seconds: Double = 5
  ) throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try client.call("STATE", name) == .bulk(expected) { return true }
      usleep(20_000)
    }
    return false
  }

  @Test("auth logs in after its delay; forceLogout cancels a pending login")
  func timersThroughTheDaemon() throws {
    let daemon = try DaemonProcess().start()
    let watcher = try daemon.client()
    _ = try watcher.call("SUBSCRIBE", "a", "b")
    _ = try watcher.read()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "auth", "a")
    _ = try client.call("SPAWN", "auth", "b")
    let start = Date()
    #expect(try client.call("SEND", "a", "login").strings == ["loggedOut", "loggingIn"])
    #expect(try client.call("SEND", "b", "login").strings == ["loggedOut", "loggingIn"])
    #expect(try client.call("SEND", "b", "forceLogout").strings == ["loggingIn", "loggingOut"])
    #expect(try waitForState(client, "a", "loggedIn"))
    #expect(Date().timeIntervalSince(start) >= 0.9)
    #expect(try waitForState(client, "b", "loggedOut"))
    var messages: [String] = []
    while messages.count < 5 {
      guard case .array(let parts?) = try watcher.read(), parts.count == 3,
        case .bulk(let name?) = parts[1], case .bulk(let text?) = parts[2]
      else { continue }
      messages.append("\(name): \(text)")
    }
    #expect(
      Set(messages) == [
        "a: login loggedOut loggingIn", "b: login loggedOut loggingIn",
        "b: forceLogout loggingIn loggingOut", "a: loginOK loggingIn loggedIn",
        "b: logoutOK loggingOut loggedOut",
      ])
    #expect(
      Array(messages.prefix(3)) == [
        "a: login loggedOut loggingIn", "b: login loggedOut loggingIn",
        "b: forceLogout loggingIn loggingOut",
      ])
  }

  @Test("SIGTERM stops cleanly; a restart restores states and pending timers")
  func restartRestores() throws {
    let daemon = try DaemonProcess().start()
    do {
      let client = try daemon.client()
      _ = try client.call("SPAWN", "counter", "c")
      for _ in 0..<3 { _ = try client.call("SEND", "c", "inc") }
      _ = try client.call("SPAWN", "auth", "a")
      _ = try client.call("SEND", "a", "login")
    }
    #expect(daemon.stop() == 0)
    #expect(daemon.logText.contains("stopping"))
    // How long the store took to close is logged: a clean stop's time is mostly its.
    #expect(daemon.logText.contains(/stopped \(the store closed in \d+ ms\)/))
    // A clean stop checkpoints: the snapshot holds everything and the journal nothing to replay.
    do {
      let store = try MachineStore(directory: daemon.directory + "/data", durability: .batched)
      #expect(store.checkpoints == 0)
      #expect(try store.loadAll().map(\.name) == ["a", "c"])
    }
    try daemon.start()
    let client = try daemon.client()
    #expect(try client.call("STATE", "c") == .bulk("3"))
    #expect(try client.call("STATE", "a") == .bulk("loggingIn"))
    #expect(try waitForState(client, "a", "loggedIn"))
  }

  @Test(
    "kill -9 right after acknowledged SENDs loses none of them", arguments: ["batched", "strict"])
  func killNineLosesNothing(durability: String) throws {
    let daemon = try DaemonProcess(["--durability", durability]).start()
    var acknowledged = 0
    do {
      let client = try daemon.client()
      _ = try client.call("SPAWN", "counter", "c")
      var batch: [UInt8] = []
      for _ in 0..<200 { batch += request(["SEND", "c", "inc"]) }
      try client.sendRaw(batch)
      for _ in 0..<200 where try client.read().strings?.count == 2 { acknowledged += 1 }
    }
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    let client = try daemon.client()
    #expect(acknowledged == 200)
    #expect(try client.call("STATE", "c") == .bulk("\(acknowledged)"))
  }

  @Test("a checkpoint is taken while serving every 1,024 records; kill -9 after it loses nothing")
  func checkpointWhileServing() throws {
    let daemon = try DaemonProcess().start()
    let count = MachineStore.checkpointRecords + 100
    do {
      let client = try daemon.client()
      // One record per spawned machine: the turns of these SPAWNs cross the checkpoint's bound
      // once (the rest stay in the journal's next epoch).
      var batch: [UInt8] = []
      for index in 0..<count { batch += request(["SPAWN", "counter", "c\(index)"]) }
      try client.sendRaw(batch)
      for _ in 0..<count { #expect(try client.read() == .simple("OK")) }
      for _ in 0..<3 { _ = try client.call("SEND", "c7", "inc") }
      // The checkpoint runs on the store's worker; a commit learns that it ended.
      let stats = try untilCheckpointed(daemon, client) { $0["store_checkpoints"] == "1" }
      #expect(stats["store_checkpoints"] == "1")
      #expect(stats["commit_failures"] == "0")
    }
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    let client = try daemon.client()
    #expect(try daemon.stats(on: client)["machines"] == "\(count)")
    #expect(try client.call("STATE", "c7") == .bulk("3"))
    #expect(try client.call("STATE", "c\(count - 1)") == .bulk("0"))
  }

  /// Sends `inc` to `c8` (a commit, which learns how the checkpoint in flight ended) until
  /// `done` holds for the daemon's stats, for at most 10 seconds; returns the last stats.
  func untilCheckpointed(
    _ daemon: DaemonProcess, _ client: ControlClient, _ done: ([String: String]) -> Bool
  ) throws -> [String: String] {
    var stats = try daemon.stats(on: client)
    for _ in 0..<1_000 where !done(stats) {
      _ = try client.call("SEND", "c8", "inc")
      usleep(10_000)
      stats = try daemon.stats(on: client)
    }
    return stats
  }

  /// Writes the kind `heavy` into `machines`: every `flip` saves 16 timers with
  /// 128-character names (a record of about 4.6 KB), so a few hundred SENDs fill the journal's
  /// first 1 MiB of room.
  func writeHeavyKind(into machines: String) throws -> (
    stateA: String, stateB: String, flip: String
  ) {
    func name(_ prefix: String) -> String {
      prefix + String(repeating: "x", count: NameRule.maxLength - prefix.count)
    }
    let (stateA, stateB, flip, tick) = (name("a"), name("b"), name("flip"), name("tick"))
    let timers = (0..<16).map { index in
      let id = name("id\(index)-")
      return #"{"after": "1h", "send": "\#(tick)", "queue": "q", "id": "\#(id)"}"#
    }
    try """
    {"kind": "heavy", "initial": "\(stateA)", "states": ["\(stateA)", "\(stateB)"],
     "inputs": ["\(flip)", "\(tick)"], "queues": {"q": {"policy": "latest", "max": 16}},
     "transitions": [
       {"on": "\(flip)", "from": "\(stateA)", "to": "\(stateB)", "effects": [\(timers.joined(separator: ","))]},
       {"on": "\(flip)", "from": "\(stateB)", "to": "\(stateA)", "effects": [\(timers.joined(separator: ","))]}]}
    """.write(toFile: machines + "/heavy.json", atomically: true, encoding: .utf8)
    return (stateA, stateB, flip)
  }

  @Test("a commit that fails (the file size limit) is not acknowledged; the next one keeps it")
  func failedCommitIsRetried() throws {
    let machines = try machinesCopy()
    let (stateA, stateB, flip) = try writeHeavyKind(into: machines)
    let daemon = try DaemonProcess(machines: machines).start()
    // Under `ulimit -f` 1 MiB the journal cannot grow past its first room.
    try daemon.limitFileSize(to: 1 << 20)
    let client = try daemon.client()
    _ = try client.call("SPAWN", "heavy", "h")
    _ = try client.call("SPAWN", "toggle", "t")
    var acknowledged = 0
    var failure: RESPValue?
    while failure == nil && acknowledged < 5_000 {
      let reply = try client.call("SEND", "h", flip)
      if reply.strings?.count == 2 { acknowledged += 1 } else { failure = reply }
    }
    // The daemon was not killed by SIGXFSZ: the write failed, the reply says so, it serves on.
    #expect(acknowledged > 100)
    #expect(failure?.errorCode == "INTERNAL", "\(String(describing: failure))")
    #expect(try client.call("PING") == .simple("PONG"))
    #expect(try client.call("SEND", "t", "flip").errorCode == "INTERNAL")
    let failures = try daemon.stats(on: client)["commit_failures"]
    #expect(failures == "2", "\(String(describing: failures))")
    // Room again: the next commit writes what the failed ones changed, with its own change.
    try daemon.limitFileSize(to: nil)
    #expect(try client.call("SEND", "t", "flip").strings == ["on", "off"])
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    let after = try daemon.client()
    // h flipped acknowledged + 1 times (the last one not acknowledged, but made and kept).
    #expect(try after.call("STATE", "h") == .bulk(acknowledged % 2 == 0 ? stateB : stateA))
    #expect(try after.call("STATE", "t") == .bulk("off"))
    #expect(try daemon.stats(on: after)["commit_failures"] == "0")
  }

  @Test("a checkpoint that fails does not fail its commits; it is retried a journal's worth later")
  func failedCheckpointIsRetried() throws {
    let machines = try machinesCopy()
    let (stateA, stateB, flip) = try writeHeavyKind(into: machines)
    let daemon = try DaemonProcess(machines: machines).start()
    // From now on no file may grow past 16 KiB: SQLite's write-ahead log cannot take a
    // checkpoint's rows, while the journal, mapped over room already written, takes records.
    try daemon.limitFileSize(to: 16 * 1024)
    let client = try daemon.client()
    let count = MachineStore.checkpointRecords + 100
    var batch: [UInt8] = []
    for index in 0..<count { batch += request(["SPAWN", "counter", "c\(index)"]) }
    try client.sendRaw(batch)
    for _ in 0..<count { #expect(try client.read() == .simple("OK")) }
    // The checkpoint fails on the store's worker, and the daemon logs it within a second or
    // so, though nothing more is committed (the store monitor collects it).
    for _ in 0..<500 where !daemon.logText.contains("store checkpoint failed") { usleep(10_000) }
    #expect(daemon.logText.contains("store checkpoint failed"))
    var stats = try daemon.stats(on: client)
    #expect(stats["store_checkpoints"] == "0")
    #expect(stats["commit_failures"] == "0")
    #expect(try client.call("SEND", "c7", "inc").strings == ["0", "1"])
    // Room again. The next try waits for another 1 MiB of journal (about 230 heavy records),
    // not for the next 1,024 records.
    try daemon.limitFileSize(to: nil)
    _ = try client.call("SPAWN", "heavy", "h")
    var flips = 0
    while try daemon.stats(on: client)["store_checkpoints"] == "0" && flips < 1_000 {
      _ = try client.call("SEND", "h", flip)
      flips += 1
    }
    // On a loaded machine the worker (nice 10) may still be at it: the store monitor collects
    // the checkpoint within a second of its end, with no commit.
    var waits = 0
    while try daemon.stats(on: client)["store_checkpoints"] == "0" && waits < 1_000 {
      usleep(10_000)
      waits += 1
    }
    #expect(flips > MachineStore.checkpointBytes / 8_192)
    stats = try daemon.stats(on: client)
    // At least the retry: on a slow build (TSan) the flips may fill another journal's worth
    // while the retry runs, and the checkpoint that follows it may end before this read.
    #expect((Int(stats["store_checkpoints"] ?? "") ?? 0) >= 1, "\(stats)")
    #expect(stats["commit_failures"] == "0")
    let log = daemon.logText
    #expect(log.components(separatedBy: "store checkpoint failed").count == 2, "\(log)")
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    let after = try daemon.client()
    #expect(try daemon.stats(on: after)["machines"] == "\(count + 1)")
    #expect(try after.call("STATE", "c7") == .bulk("1"))
    #expect(try after.call("STATE", "h") == .bulk(flips % 2 == 1 ? stateB : stateA))
  }

  @Test("durability none keeps nothing across a restart")
  func durabilityNone() throws {
    let daemon = try DaemonProcess(["--durability", "none"]).start()
    _ = try daemon.client().call("SPAWN", "counter", "c")
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(try daemon.client().call("LIST").strings == [])
  }

  @Test("a bad machine file stops start-up with the file and field named")
  func badFileAtStartup() throws {
    let machines = try machinesCopy()
    try
      #"{"kind": "bad", "initial": "a", "states": ["a"], "transitions": [{"on": "x", "from": "a", "to": "b"}]}"#
      .write(toFile: machines + "/bad.json", atomically: true, encoding: .utf8)
    let daemon = DaemonProcess(machines: machines)
    let result = try DaemonProcess.run(DaemonProcess.product("millraced"), daemon.arguments)
    #expect(result.status != 0)
    #expect(result.output.contains("bad.json: transitions[0].to"))
  }

  @Test("a second daemon on the same data directory refuses to start; the first keeps going")
  func dataDirectoryIsExclusive() throws {
    let first = try DaemonProcess().start()
    _ = try first.client().call("SPAWN", "toggle", "t")
    let second = DaemonProcess(["--data", first.directory + "/data"])
    let result = try DaemonProcess.run(DaemonProcess.product("millraced"), second.arguments)
    #expect(result.status != 0)
    #expect(result.output.contains("locked"), "\(result.output)")
    #expect(try first.client().call("SEND", "t", "flip").strings == ["off", "on"])
  }

  @Test("SIGHUP reloads machine files and keeps the old ones when a file is bad")
  func reload() throws {
    let machines = try machinesCopy()
    let daemon = try DaemonProcess(machines: machines).start()
    let client = try daemon.client()
    try
      #"{"kind": "lamp", "initial": "dark", "final": ["lit"], "transitions": [{"on": "switch", "from": "dark", "to": "lit"}]}"#
      .write(toFile: machines + "/lamp.json", atomically: true, encoding: .utf8)
    kill(daemon.process!.processIdentifier, SIGHUP)
    #expect(try poll { try client.call("KINDS").strings?.contains("lamp") == true })
    try #"{"kind": "lamp", "initial": "dark", "transitions": [{"on": 5}]}"#
      .write(toFile: machines + "/lamp.json", atomically: true, encoding: .utf8)
    kill(daemon.process!.processIdentifier, SIGHUP)
    #expect(try poll { daemon.logText.contains("reload refused") })
    #expect(try client.call("SPAWN", "lamp", "l") == .simple("OK"))
    #expect(try client.call("SEND", "l", "switch").strings == ["dark", "lit"])
  }

  @Test("NOTIFY_SOCKET receives READY=1 and STOPPING=1")
  func systemdNotify() throws {
    let daemon = DaemonProcess()
    let path = daemon.directory + "/notify.sock"
    let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    daemon.environment["NOTIFY_SOCKET"] = path
    try daemon.start()
    daemon.stop()
    var received: [String] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    while true {
      let count = buffer.withUnsafeMutableBytes {
        recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
      }
      guard count > 0 else { break }
      received.append(String(decoding: buffer[0..<count], as: UTF8.self))
    }
    #expect(received == ["READY=1", "STOPPING=1"])
  }

  /// A private copy of examples/machines.
  func machinesCopy() throws -> String {
    let directory = NSTemporaryDirectory() + "mr-machines-\(UUID().uuidString)"
    try FileManager.default.copyItem(
      atPath: DaemonProcess.repository + "/examples/machines", toPath: directory)
    return directory
  }

  func poll(seconds: Double = 5, _ condition: () throws -> Bool) throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try condition() { return true }
      usleep(20_000)
    }
    return false
  }
}
