import Foundation
import MillraceClient
import Testing

/// The store's files taken from under a running daemon, and a data directory it cannot use at
/// start (issue 20, points 6 and 7; docs/store.md, "When the store fails").
@Suite("Store failure")
struct StoreFailureTests {
  /// Machines in three situations: a counter at 2, a door opened (its 5 s `autoClose` timer
  /// pending), an auth logging in (its 1 s `loginOK` timer pending).
  func spawnMachines(_ client: ControlClient) throws {
    for (kind, name) in [("counter", "c"), ("door", "d"), ("auth", "a")] {
      #expect(try client.call("SPAWN", kind, name) == .simple("OK"))
    }
    for (name, input) in [("c", "inc"), ("c", "inc"), ("d", "open"), ("a", "login")] {
      #expect(try client.call("SEND", name, input).strings?.count == 2)
    }
  }

  /// Waits until `STATS` says the store failed; returns its `store_failure`.
  func waitForFailure(_ daemon: DaemonProcess, _ client: ControlClient) throws -> String? {
    guard
      try daemon.eventually(
        seconds: 5, { try daemon.stats(on: client)["store_status"] == "failed" })
    else { return nil }
    return try daemon.stats(on: client)["store_failure"]
  }

  /// Checks that every change is refused with `misconf` naming `path`, and reads go on.
  func expectChangesRefused(
    _ client: ControlClient, naming path: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    for request in [["SPAWN", "counter", "e"], ["SEND", "c", "inc"], ["KILL", "c"]] {
      let reply = try client.call(request)
      #expect(reply.errorCode == "MISCONF", "\(request): \(reply)", sourceLocation: sourceLocation)
      #expect(
        "\(reply)".contains("store unusable: ") && "\(reply)".contains(path)
          && "\(reply)".contains("changes are refused"),
        "\(request): \(reply)", sourceLocation: sourceLocation)
    }
    #expect(try client.call("STATE", "c") == .bulk("2"), sourceLocation: sourceLocation)
    #expect(try client.call("LIST").strings == ["a", "c", "d"], sourceLocation: sourceLocation)
    #expect(try client.call("PING") == .simple("PONG"), sourceLocation: sourceLocation)
  }

  /// After a restart: every machine is back with its timers (the auth's fires, if it had not
  /// before the stop; the door's is pending).
  func expectEveryMachineBack(_ daemon: DaemonProcess) throws {
    let client = try daemon.client()
    #expect(try client.call("LIST").strings == ["a", "c", "d"])
    #expect(try client.call("STATE", "c") == .bulk("2"))
    #expect(try client.call("STATE", "d") == .bulk("opened"))
    #expect(
      try daemon.eventually(seconds: 5) { try client.call("STATE", "a") == .bulk("loggedIn") })
    #expect(try daemon.stats(on: client)["timers"] == "1", "the door's autoClose")
    #expect(try client.call("SEND", "c", "inc").strings == ["2", "3"])
  }

  @Test("the data directory deleted while running: changes refused, reads go on, a stop rebuilds")
  func deletedDirectory() throws {
    let daemon = try DaemonProcess().start()
    let data = daemon.directory + "/data"
    let client = try daemon.client()
    try spawnMachines(client)
    try FileManager.default.removeItem(atPath: data)
    let failure = try waitForFailure(daemon, client)
    #expect(failure?.contains(data) == true, "\(String(describing: failure))")
    #expect(failure?.hasSuffix("was deleted or moved") == true, "\(String(describing: failure))")
    try expectChangesRefused(client, naming: data)
    // A timer still moves its machine, in memory only, and STATS counts it.
    #expect(
      try daemon.eventually(seconds: 5) { try client.call("STATE", "a") == .bulk("loggedIn") })
    #expect(try daemon.stats(on: client)["store_unstored_changes"] == "1")
    let said = daemon.logText.split(separator: "\n").filter { $0.contains("store unusable:") }
    #expect(said.count == 1, "\(said)")
    #expect(said.first?.contains(" error ") == true && said.first?.contains(data) == true)
    // A clean stop writes every machine into a new store at the same path.
    #expect(daemon.stop() == 0, "\(daemon.logText)")
    #expect(daemon.logText.contains("store rebuilt from memory at \(data): 3 machine(s) saved"))
    try daemon.start()
    try expectEveryMachineBack(daemon)
  }

  @Test(
    "a store file replaced by another while running: noticed, changes refused, a stop rebuilds",
    arguments: ["machines.journal", "machines.sqlite3"])
  func replacedFile(name: String) throws {
    let daemon = try DaemonProcess().start()
    let path = daemon.directory + "/data/" + name
    let client = try daemon.client()
    try spawnMachines(client)
    let other = daemon.directory + "/other"
    try "not the store's\n".write(toFile: other, atomically: false, encoding: .utf8)
    #expect(rename(other, path) == 0)
    let failure = try waitForFailure(daemon, client)
    #expect(failure == "\(path) was replaced by another file", "\(String(describing: failure))")
    try expectChangesRefused(client, naming: path)
    #expect(daemon.logText.contains("store unusable: \(path) was replaced by another file"))
    #expect(daemon.stop() == 0, "\(daemon.logText)")
    // The other file is set aside, not overwritten.
    let names = try FileManager.default.contentsOfDirectory(atPath: daemon.directory + "/data")
    let setAside = try #require(names.first { $0.hasPrefix(name + ".unusable-") }, "\(names)")
    #expect(
      try String(contentsOfFile: daemon.directory + "/data/" + setAside, encoding: .utf8)
        == "not the store's\n")
    try daemon.start()
    try expectEveryMachineBack(daemon)
  }

  /// A data directory the daemon cannot use, as root too (root ignores file modes).
  enum Unusable: String, CaseIterable, CustomTestStringConvertible {
    /// A read-only bind mount in a mount namespace of the daemon's own (`unshare --mount`).
    case readOnlyMount
    /// An existing directory of another owner, the daemon run as uid 65534 (`setpriv`).
    case anotherUsersDirectory
    /// A path whose parent is a regular file.
    case parentIsAFile

    var testDescription: String { rawValue }
  }

  @Test(
    "an unusable data directory at start: non-zero exit, one sentence naming it, no SQL",
    arguments: Unusable.allCases)
  func unusableAtStart(_ unusable: Unusable) throws {
    let daemon = DaemonProcess()
    let millraced = DaemonProcess.product("millraced")
    let data: String
    let expected: String
    // The daemon runs under `timeout`: one that starts anyway ends within seconds. SIGKILL:
    // the test process's children inherit its blocked SIGTERM.
    var command = ["/usr/bin/timeout", "-s", "KILL", "10"]
    switch unusable {
    case .readOnlyMount:
      data = daemon.directory + "/data"
      try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
      let mount = "mount --bind \(data) \(data) && mount -o remount,bind,ro \(data)"
      let probe = try DaemonProcess.run(
        "/usr/bin/unshare", ["--mount", "sh", "-c", "\(mount) && ! touch \(data)/probe"])
      guard probe.status == 0 else {
        try Test.cancel("no read-only bind mount in a mount namespace here: \(probe.output)")
      }
      command += ["/usr/bin/unshare", "--mount", "sh", "-c", "\(mount) && exec \"$0\" \"$@\""]
      expected = "data directory \(data) is not writable (read-only file system)"
    case .anotherUsersDirectory:
      guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
        try Test.cancel("needs root and /usr/bin/setpriv to run the daemon as another user")
      }
      data = daemon.directory + "/data"
      try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
      // uid 65534 may enter both directories, and write in neither.
      #expect(chmod(daemon.directory, 0o755) == 0 && chmod(data, 0o755) == 0)
      command += ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
      expected = "data directory \(data) is not writable (permission denied)"
    case .parentIsAFile:
      try "a file\n".write(toFile: daemon.directory + "/file", atomically: false, encoding: .utf8)
      data = daemon.directory + "/file/data"
      expected = "data directory \(data) cannot be created (not a directory)"
    }
    // Machine files of its own, in the daemon's directory: uid 65534 may not be able to reach
    // the repository's (a clone under a 0700 directory, as `mktemp -d` makes).
    let machines = daemon.directory + "/machines"
    try FileManager.default.createDirectory(atPath: machines, withIntermediateDirectories: false)
    #expect(chmod(machines, 0o755) == 0)
    let arguments = ["--socket", daemon.socketPath, "--data", data, "--machines", machines]
    let result = try DaemonProcess.run(command[0], command.dropFirst() + [millraced] + arguments)
    #expect(result.status != 0 && result.status != 124, "\(result.status): \(result.output)")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == 1, "\(result.output)")
    #expect(lines.first?.hasSuffix("cannot start: \(expected)") == true, "\(result.output)")
    #expect(!result.output.contains("PRAGMA") && !result.output.contains("CREATE"))
  }
}
