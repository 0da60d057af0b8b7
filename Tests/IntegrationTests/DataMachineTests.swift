import Foundation
import MillraceClient
import Testing

/// Kinds with data (machine files v2) through the real daemon: arguments, the context in
/// `STATE`, values in pub/sub messages, and both kept across `kill -9`.
@Suite("Machines with data")
struct DataMachineTests {
  /// A subscriber's next message body on `channel`.
  func message(_ client: ControlClient, on channel: String) throws -> String? {
    try NestedMachineTests().message(client, on: channel)
  }

  @Test("SEND takes an input's arguments; STATE shows the context; redis-cli reads both")
  func argumentsAndContext() throws {
    let daemon = try DaemonProcess().start()
    let driver = try daemon.client()
    let subscriber = try daemon.subscriber(to: "m")
    #expect(try driver.call("SPAWN", "login", "m") == .simple("OK"))
    #expect(try driver.call("SEND", "m", "login", "ann lee", "7").strings == ["idle", "idle"])
    #expect(try message(subscriber, on: "m") == #"login("ann\u0020lee",7) idle idle"#)
    #expect(try message(subscriber, on: "m") == #"emit failed("ann\u0020lee",2)"#)
    #expect(
      try daemon.redisCLI("STATE", "m", "WITHCONTEXT") == "idle\nattempts\n1\nuser\n\n")
    #expect(try daemon.redisCLI("SEND", "m", "login", "ann", "1234") == "idle\nsession\n")
    #expect(try driver.call("STATE", "m") == .bulk("session"))
    #expect(try driver.call("STATE", "m", "withpath") == .bulk("session"))
    #expect(
      try driver.call("STATE", "m", "WITHCONTEXT").strings
        == ["session", "attempts", "0", "user", "ann"])
    // Wrong arguments change nothing and say which parameter.
    for (words, text) in [
      (
        ["login", "ann"],
        "kind login: input login takes 2 arguments (name: string, pin: int); got 1"
      ),
      (
        ["login", "ann", "1x"],
        #"kind login: input login: parameter pin (int): expected an integer, got "1x""#
      ),
      (["logout", "now"], "kind login: input logout takes no arguments; got 1"),
    ] {
      #expect(try driver.call(["SEND", "m"] + words) == .error("NOINPUT " + text))
    }
    #expect(try driver.call("STATE", "m", "WITHORDER") == .error("ERR syntax error"))
    #expect(try driver.call("STATE", "m") == .bulk("session"))
    // A nested kind's path.
    _ = try driver.call("SPAWN", "media-player", "p", "paused")
    #expect(try driver.call("STATE", "p", "WITHPATH") == .bulk("on/paused"))
    #expect(try driver.call("STATE", "p", "WITHPATH", "WITHCONTEXT").strings == ["on/paused"])
  }

  @Test("kill -9 keeps a machine's context and its timer; the timer fires on an idle daemon")
  func contextAndTimersSurviveKillNine() throws {
    let daemon = try DaemonProcess().start()
    do {
      let client = try daemon.client()
      _ = try client.call("SPAWN", "circuit-breaker", "b")
      #expect(try client.call("SEND", "b", "configure", "2").strings == ["closed", "closed"])
      _ = try client.call("SEND", "b", "failure")
      #expect(try client.call("SEND", "b", "failure").strings == ["closed", "open"])
    }
    let opened = Date()
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    let client = try daemon.client()
    #expect(
      try client.call("STATE", "b", "WITHCONTEXT").strings
        == ["open", "failures", "2", "threshold", "2"])
    // `open`'s entry timer (5 s) was restored: the breaker half-opens without any request.
    let subscriber = try daemon.subscriber(to: "b")
    #expect(try message(subscriber, on: "b") == "probe open halfOpen")
    #expect(try message(subscriber, on: "b") == "emit halfOpened")
    let waited = Date().timeIntervalSince(opened)
    #expect(waited > 4.5 && waited < 9)
    #expect(try client.call("SEND", "b", "success").strings == ["halfOpen", "closed"])
  }

  /// A daemon serving `examples/machines/login.json` from a machines directory of its own,
  /// the file's text, and its path there.
  func loginDaemon() throws -> (daemon: DaemonProcess, login: String, path: String) {
    let daemon = DaemonProcess()
    let login = try String(
      contentsOfFile: DaemonProcess.repository + "/examples/machines/login.json", encoding: .utf8)
    let machines = try daemon.serveMachineFiles(["login.json": login])
    return (daemon, login, machines + "/login.json")
  }

  @Test("a restart under a file whose variables changed refuses machines it cannot hold")
  func changedVariablesAreRefused() throws {
    let (daemon, login, path) = try loginDaemon()
    try daemon.start()
    do {
      let client = try daemon.client()
      _ = try client.call("SPAWN", "login", "m")
      _ = try client.call("SEND", "m", "login", "ann", "1")
    }
    #expect(daemon.stop() == 0)
    // `attempts` is renamed `tries`: the stored count has no variable to go to.
    try login.replacingOccurrences(of: "attempts", with: "tries")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let refused = try DaemonProcess.run(DaemonProcess.product("millraced"), daemon.arguments)
    #expect(refused.status != 0)
    #expect(
      refused.output.contains(
        #"kind "login" cannot hold the context of "idle{attempts=1,user=\"\"}""#),
      "\(refused.output)")
    // Back to the first file, the machine is as it was.
    try login.write(toFile: path, atomically: true, encoding: .utf8)
    try daemon.start()
    #expect(
      try daemon.client().call("STATE", "m", "WITHCONTEXT").strings
        == ["idle", "attempts", "1", "user", ""])
  }

  @Test("a reload (SIGHUP) moves running machines to new variables, or refuses what they lose")
  func reloadMapsContexts() throws {
    let (daemon, login, path) = try loginDaemon()
    try daemon.start()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "login", "m")
    _ = try client.call("SEND", "m", "login", "ann", "1")
    // A new variable: the machine keeps its values and takes the new one's initial value.
    let added = login.replacingOccurrences(
      of: #""context": {"#, with: #""context": { "last": { "type": "int", "initial": 7 },"#)
    try added.write(toFile: path, atomically: true, encoding: .utf8)
    var logged = daemon.logText.utf8.count
    kill(daemon.pid, SIGHUP)
    #expect(daemon.waitForLog("reloaded machine files", after: logged))
    #expect(
      try client.call("STATE", "m", "WITHCONTEXT").strings
        == ["idle", "attempts", "1", "last", "7", "user", ""])
    // A variable renamed: refused, the machine and the definitions as they were.
    try added.replacingOccurrences(of: "attempts", with: "tries")
      .write(toFile: path, atomically: true, encoding: .utf8)
    logged = daemon.logText.utf8.count
    kill(daemon.pid, SIGHUP)
    #expect(daemon.waitForLog("reload refused", after: logged))
    #expect(
      daemon.logText.contains(#"cannot hold the context of "idle{attempts=1,last=7,user=\"\"}""#))
    #expect(try client.call("SEND", "m", "login", "ann", "2").strings == ["idle", "idle"])
    #expect(
      try client.call("STATE", "m", "WITHCONTEXT").strings
        == ["idle", "attempts", "2", "last", "7", "user", ""])
  }

  @Test(
    "kill -9 after the OKs of pipelined SPAWNs loses no entry timer; in EXEC the next command sees the start",
    arguments: ["batched", "strict"])
  func spawnWaitsForItsEntryEffects(durability: String) throws {
    let daemon = try DaemonProcess(["--durability", durability]).start()
    // More spawns in one pipeline than one turn dispatches: some starts run turns later.
    let count = 3_000
    do {
      let client = try daemon.client()
      var batch: [UInt8] = []
      for index in 0..<count { batch += request(["SPAWN", "circuit-breaker", "b\(index)"]) }
      try client.sendRaw(batch)
      for _ in 0..<count { #expect(try client.read() == .simple("OK")) }
    }
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    // Every breaker's `closed` entry started its window timer, and it was stored.
    let stats = try daemon.stats()
    #expect(stats["machines"] == "\(count)")
    #expect(stats["timers"] == "\(count)")
    // Inside MULTI the OK is the EXEC element, and the next command sees the machine started.
    let client = try daemon.client()
    _ = try client.call("MULTI")
    _ = try client.call("SPAWN", "circuit-breaker", "t")
    _ = try client.call("STATE", "t")
    #expect(try client.call("EXEC") == .array([.simple("OK"), .bulk("closed")]))
  }
}
