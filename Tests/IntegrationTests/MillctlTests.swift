import Foundation
import MillraceClient
import Testing

/// `millctl` against the real daemon: every subcommand through its printed output and exit
/// status, as a user or a script sees them.
@Suite struct MillctlTests {
  /// A kind with data: `send` passes the arguments, `state --context` prints the variables.
  @Test func sendArgumentsAndStateContext() throws {
    try withDaemon { daemon in
      let ctl = Millctl(daemon)
      try ctl.expect(["spawn", "login", "l"], prints: "OK\n")
      try ctl.expect(["send", "l", "login", "ann lee", "1234"], prints: "idle -> session\n")
      try ctl.expect(["state", "l", "--context"], prints: "session\nattempts=0\nuser=ann lee\n")
      try ctl.expect(["spawn", "media-player", "p", "paused"], prints: "OK\n")
      try ctl.expect(["state", "p", "--path"], prints: "on/paused\n")
      try ctl.expect(
        ["send", "l", "logout", "now"],
        fails: "millctl: NOINPUT kind login: input logout takes no arguments; got 1\n")
    }
  }

  @Test func spawnSendStateListKillRoundTrip() throws {
    try withDaemon { daemon in
      let ctl = Millctl(daemon)
      try ctl.expect(["spawn", "toggle", "t"], prints: "OK\n")
      try ctl.expect(["spawn", "door", "d", "locked"], prints: "OK\n")
      try ctl.expect(["send", "t", "flip"], prints: "off -> on\n")
      try ctl.expect(["send", "t", "on"], prints: "on -> on\n")
      try ctl.expect(["state", "t"], prints: "on\n")
      try ctl.expect(["state", "d"], prints: "locked\n")
      try ctl.expect(["list"], prints: "d\nt\n")
      try ctl.expect(["list", "toggle"], prints: "t\n")
      try ctl.expect(["list", "auth"], prints: "")
      try ctl.expect(["kill", "t"], prints: "OK\n")
      try ctl.expect(["list"], prints: "d\n")
      try ctl.expect(["ping"], prints: "PONG\n")
      let kinds = try ctl.run(["kinds"])
      #expect(kinds.status == 0)
      #expect(
        kinds.lines == [
          "auth", "circuit-breaker", "counter", "door", "login", "media-player", "toggle",
          "traffic-light",
        ])
      let stats = try ctl.run(["stats"])
      #expect(stats.status == 0)
      #expect(stats.lines.contains("machines:1"))
      #expect(stats.lines.contains("# Millrace"))
      #expect(stats.lines.allSatisfy { $0.isEmpty || $0.hasPrefix("# ") || $0.contains(":") })
    }
  }

  @Test func dotDrawsAKindTheDaemonServes() throws {
    try withDaemon { daemon in
      let ctl = Millctl(daemon)
      let door = try ctl.run(["dot", "door"])
      #expect(door.status == 0, "\(door.errors)")
      #expect(door.output.hasPrefix(#"digraph "door" {"#))
      #expect(door.output.contains(#"  "opened" -> "closed" [label="close\ncancel autoclose"];"#))
      // Compiled into the daemon, drawn from the definition it describes.
      let counter = try ctl.run(["dot", "counter"])
      #expect(counter.status == 0, "\(counter.errors)")
      #expect(counter.output.hasPrefix(#"digraph "counter" {"#) && counter.output.hasSuffix("}\n"))
      for line in [
        #"  "(start)" -> "counting";"#,
        #"  "(context)" [shape=note, label="count: int = 0\linput add(n: int)\l"];"#,
        #"  "counting" -> "counting" [label="dec [count == 1]\nassign count = 0\nemit zero"];"#,
      ] {
        #expect(counter.lines.contains(line), "missing \(line)\n\(counter.output)")
      }
      let missing = try ctl.run(["dot", "ghost"])
      #expect(missing.status == 1 && missing.errors == "millctl: NOKIND no kind ghost\n")
    }
  }

  @Test func mermaidAndDescribe() throws {
    try withDaemon { daemon in
      let ctl = Millctl(daemon)
      try ctl.expect(
        ["mermaid", "auth"],
        prints: """
          stateDiagram-v2
            loggedOut
            loggingIn
            loggedIn
            loggingOut
            [*] --> loggedOut
            loggedOut --> loggingIn : login / after 1s send loginOK (queue request, id req)
            loggingIn --> loggedIn : loginOK
            loggedIn --> loggingOut : logout / after 1s send logoutOK (queue request)
            loggingOut --> loggedOut : logoutOK
            loggingIn --> loggingOut : forceLogout / after 1s send logoutOK (queue request)
            loggedIn --> loggingOut : forceLogout / after 1s send logoutOK (queue request)

          """)
      let player = try ctl.run(["mermaid", "media-player"])
      #expect(player.status == 0, "\(player.errors)")
      #expect(player.lines.contains("  state on {") && player.lines.contains("    [*] --> playing"))
      try ctl.expect(["mermaid", "ghost"], fails: "millctl: NOKIND no kind ghost\n")
      let door = try String(
        contentsOfFile: DaemonProcess.repository + "/examples/machines/door.json", encoding: .utf8)
      // As the daemon serves it, the file as loaded, with one line end at the end.
      var expected = Substring(door)
      while expected.last == "\n" { expected = expected.dropLast() }
      try ctl.expect(["describe", "door"], prints: expected + "\n")
      try ctl.expect(["describe", "nokind"], fails: "millctl: NOKIND no kind nokind\n")
    }
  }

  @Test func errorRepliesPrintOneLineAndExitOne() throws {
    try withDaemon { daemon in
      let ctl = Millctl(daemon)
      try ctl.expect(["spawn", "door", "d"], prints: "OK\n")
      try ctl.expect(["send", "d", "unlock"], fails: "millctl: REJECTED unlock in closed\n")
      try ctl.expect(["send", "nobody", "open"], fails: "millctl: NOMACHINE no machine nobody\n")
      try ctl.expect(["spawn", "door", "d"], fails: "millctl: EXISTS machine d exists\n")
      try ctl.expect(["state", "d"], prints: "closed\n")
      for arguments in [["send", "d", "fly"], ["spawn", "nokind", "x"], ["list", "nokind"]] {
        let result = try ctl.run(arguments)
        #expect(result.status == 1 && result.output.isEmpty, "\(arguments)")
        #expect(result.errors.hasPrefix("millctl: NO"), "\(arguments)")
        #expect(result.errors.filter { $0 == "\n" }.count == 1, "\(arguments)")
      }
    }
  }

  @Test func watchPrintsTimestampedMessagesUntilCount() throws {
    try withDaemon { daemon in
      let ctl = Millctl(daemon)
      try ctl.expect(["spawn", "counter", "c"], prints: "OK\n")
      try ctl.expect(["spawn", "toggle", "t"], prints: "OK\n")
      let named = try ctl.start(["watch", "--count", "2", "c"])
      let everything = try ctl.start(["watch", "*", "--count", "4"])
      try waitForSubscriptions(2, on: daemon)
      let client = try daemon.client()
      for (name, input) in [("t", "flip"), ("c", "inc"), ("c", "dec"), ("c", "dec")] {
        _ = try client.call("SEND", name, input)
      }
      let stamp = "[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
      let first = named.finish()
      #expect(first.status == 0, "\(first.errors)")
      #expect(first.matches([stamp + "c: inc 0 1", stamp + "c: dec 1 0"]), "\(first.output)")
      let all = everything.finish()
      #expect(all.status == 0, "\(all.errors)")
      let expected = ["t: flip off on", "c: inc 0 1", "c: dec 1 0", "c: emit zero"]
      #expect(all.matches(expected.map { stamp + $0 }), "\(all.output)")
    }
  }

  @Test func watchFailsOnAnInvalidName() throws {
    try withDaemon { daemon in
      let result = try Millctl(daemon).run(["watch", "ok", "bad name"])
      #expect(result.status == 1)
      #expect(result.errors.hasPrefix("millctl: invalid name \"bad name\""))
    }
  }

  /// Errors as redis-server sends them, the code first (`-NOAUTH ...`, `-ERR ...`): printed
  /// from the code on, the generic `ERR` left out.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: redisServer)))
  func redisErrorsStartWithTheirCode() throws {
    try withRedisServer(["--requirepass", "s3cret"]) { socket in
      let ctl = Millctl(socket: socket)
      try ctl.expect(["ping"], fails: "millctl: NOAUTH Authentication required.\n")
      try ctl.expect(["--token", "s3cret", "ping"], prints: "PONG\n")
      try ctl.expect(
        ["--token", "s3cret", "state", "d"],
        fails: "millctl: unknown command 'STATE', with args beginning with: 'd' \n")
    }
  }

  /// `watch` reads RESP2 pub/sub messages (`pmessage`) as Redis sends them.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: redisServer)))
  func watchReadsRedisMessages() throws {
    try withRedisServer([]) { socket in
      let watch = try Millctl(socket: socket).start(["watch", "--count", "1", "d"])
      let client = try ControlClient(address: socket, timeoutSeconds: 5)
      try waitUntil("watch subscribes") {
        try client.call("PUBSUB", "NUMPAT") == .integer(1)
      }
      #expect(try client.call("PUBLISH", "d", "open closed opened") == .integer(1))
      let result = watch.finish()
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.matches(["[0-9:.]{12} d: open closed opened"]), "\(result.output)")
    }
  }

  @Test func daemonNotRunningIsOneClearLine() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let ctl = Millctl(socket: nil)
    let expected =
      "millctl: cannot connect to ./.millrace/millraced.sock: No such file or directory"
      + " (is millraced running?)\n"
    for arguments in [["ping"], ["send", "door", "open"], ["watch", "door"], ["repl"]] {
      let result = try ctl.run(arguments, directory: directory)
      #expect(result.status == 1, "\(arguments)")
      #expect(result.errors == expected, "\(arguments)")
      #expect(result.output.isEmpty, "\(arguments)")
    }
    let elsewhere = try ctl.run(["--socket", directory + "/gone.sock", "state", "x"])
    #expect(elsewhere.status == 1)
    #expect(elsewhere.errors.hasPrefix("millctl: cannot connect to \(directory)/gone.sock: "))
  }

  @Test func usageErrorsExitTwo() throws {
    let ctl = Millctl(socket: nil)
    for arguments in [
      ["send", "only-a-name"], ["frobnicate"], ["watch"], ["watch", "--count", "0", "d"],
      ["--connect", "no-port", "ping"], ["--socket", "a", "--connect", "1234", "ping"],
    ] {
      let result = try ctl.run(arguments)
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(!result.errors.isEmpty, "\(arguments)")
    }
    #expect(try ctl.run(["--help"]).status == 0)
  }

  @Test func socketComesFromOptionThenEnvironment() throws {
    try withDaemon { daemon in
      let fromEnvironment = Millctl(
        socket: nil, environment: ["MILLRACE_SOCKET": daemon.socketPath])
      try fromEnvironment.expect(["ping"], prints: "PONG\n")
      let before = try Millctl(socket: nil).run(["--socket", daemon.socketPath, "ping"])
      #expect(before.status == 0 && before.output == "PONG\n")
      // A bare relative path is a socket path too.
      let relative = try Millctl(socket: nil).run(
        ["--socket", "d.sock", "ping"], directory: daemon.directory)
      #expect(relative.status == 0 && relative.output == "PONG\n", "\(relative.errors)")
    }
  }

  @Test func tokenAndTCP() throws {
    let port = try DaemonProcess.freePort()
    try withDaemon(["--listen", "127.0.0.1:\(port)", "--token", "s3cret"]) { daemon in
      let tcp = ["--connect", "127.0.0.1:\(port)"]
      let ctl = Millctl(socket: nil)
      #expect(try ctl.run(tcp + ["--token", "s3cret", "spawn", "toggle", "t"]).output == "OK\n")
      let viaEnvironment = Millctl(socket: nil, environment: ["MILLRACE_TOKEN": "s3cret"])
      try viaEnvironment.expect(tcp + ["send", "t", "flip"], prints: "off -> on\n")
      try Millctl(daemon).expect(
        ["--token", "s3cret", "state", "t"], prints: "on\n")
      let denied = try ctl.run(tcp + ["state", "t"])
      #expect(denied.status == 1)
      #expect(denied.errors == "millctl: NOAUTH Authentication required.\n")
      let wrong = try ctl.run(tcp + ["--token", "nope", "state", "t"])
      #expect(
        wrong.status == 1
          && wrong.errors
            == "millctl: WRONGPASS invalid username-password pair or user is disabled.\n"
      )
    }
  }

  @Test func replRunsPipedLines() throws {
    try withDaemon { daemon in
      let script = """
        # a comment, then a blank line

        SPAWN toggle r
        send r flip
        "STATE" 'r'
        !!
        PING "hello world"
        history
        LIST toggle
        SEND r fly
        SUBSCRIBE
        KINDS
        """
      let result = try Millctl(daemon).run(["repl"], input: script + "\n")
      let expected = [
        "OK", "1) off", "2) on", "on", "on", "hello world",
        "    1  SPAWN toggle r", "    2  send r flip", "    3  \"STATE\" 'r'",
        "    4  PING \"hello world\"", "    5  history",
        "1) r", "(error) NOINPUT kind toggle has no input fly",
        "(error) ERR wrong number of arguments for 'subscribe' command",
        "1) auth", "2) circuit-breaker", "3) counter", "4) door", "5) login", "6) media-player",
        "7) toggle", "8) traffic-light",
      ]
      #expect(result.lines == expected, "\(result.output)")
      #expect(result.status == 1, "an error reply makes a piped repl exit 1")
      let clean = try Millctl(daemon).run(["repl"], input: "STATE r\nexit\nSTATE nobody\n")
      #expect(clean.status == 0 && clean.output == "on\n")
    }
  }

  @Test func replEditsLinesOnATerminal() throws {
    try withDaemon { daemon in
      let terminal = try PseudoTerminal()
      let process = Process()
      process.executableURL = URL(fileURLWithPath: DaemonProcess.product("millctl"))
      process.arguments = ["--socket", daemon.socketPath, "repl"]
      process.environment = ["TERM": "xterm", "PATH": "/usr/bin:/bin"]
      process.standardInput = terminal.follower
      process.standardOutput = terminal.follower
      process.standardError = terminal.follower
      try process.run()
      terminal.closeFollower()
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

      let prompt = "millrace> "
      try terminal.expect(prompt)
      let exchanges = [
        ("SPAWN toggle p\r", "OK"),
        ("SEND p flip\r", "2) on"),
        ("\u{1B}[A\r", "2) off"),  // Up recalls the last line
        ("SEND p fip\u{1B}[D\u{1B}[Dl\r", "2) on"),  // Left, Left, insert
        ("STATE pq\u{7F}\r", "on\r\n"),  // Backspace
        ("!!\r", "on\r\n"),
        ("nonsense\u{03}", "^C"),  // ^C abandons the line
      ]
      for (keys, reply) in exchanges {
        try terminal.send(keys)
        try terminal.expect(reply)
        try terminal.expect(prompt)
      }
      try terminal.send("\u{04}")  // ^D on an empty line ends the session
      try waitUntil("millctl repl exits") { !process.isRunning }
      #expect(process.terminationStatus == 0)
    }
  }
}

// MARK: - Running millctl

/// Runs the built `millctl` with a socket option, a clean environment and a time limit.
private struct Millctl {
  /// What a finished run printed.
  struct Result {
    var status: Int32
    var output: String
    var errors: String

    var lines: [String] {
      output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Whether the output lines match `patterns` (regular expressions), in order.
    func matches(_ patterns: [String]) -> Bool {
      lines.count == patterns.count
        && zip(lines, patterns).allSatisfy { line, pattern in
          line.range(of: "^" + pattern + "$", options: .regularExpression) != nil
        }
    }
  }

  /// A running `millctl`.
  final class Running {
    let process = Process()
    let output: String
    let errors: String

    init(_ arguments: [String], environment: [String: String], directory: String?, input: String?)
      throws
    {
      let scratch = try temporaryDirectory()
      output = scratch + "/out"
      errors = scratch + "/err"
      for file in [output, errors] {
        _ = FileManager.default.createFile(atPath: file, contents: nil)
      }
      process.executableURL = URL(fileURLWithPath: DaemonProcess.product("millctl"))
      process.arguments = arguments
      process.environment = environment
      if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
      let stdin = Pipe()
      process.standardInput = stdin
      try process.run()
      if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
      try stdin.fileHandleForWriting.close()
    }

    /// Waits for the exit and collects the output. After `seconds` the test fails and millctl
    /// gets SIGKILL (a process started from a test thread may have SIGTERM blocked).
    func finish(within seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation)
      -> Result
    {
      do {
        try waitUntil(
          "millctl \(process.arguments ?? []) exits", within: seconds,
          sourceLocation: sourceLocation
        ) {
          !process.isRunning
        }
      } catch {
        kill(process.processIdentifier, SIGKILL)
      }
      process.waitUntilExit()
      let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
      defer {
        try? FileManager.default.removeItem(atPath: (output as NSString).deletingLastPathComponent)
      }
      return Result(status: process.terminationStatus, output: read(output), errors: read(errors))
    }
  }

  let socket: String?
  let environment: [String: String]

  /// `millctl --socket <daemon's socket> ...`.
  init(_ daemon: DaemonProcess) {
    self.init(socket: daemon.socketPath)
  }

  /// `millctl [--socket socket] ...` with `environment` added to a clean one.
  init(socket: String?, environment: [String: String] = [:]) {
    self.socket = socket
    let inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MILLRACE_") }
    self.environment = inherited.merging(environment) { $1 }
  }

  func start(_ arguments: [String], input: String? = nil, directory: String? = nil) throws
    -> Running
  {
    let options = socket.map { ["--socket", $0] } ?? []
    return try Running(
      options + arguments, environment: environment, directory: directory, input: input)
  }

  func run(_ arguments: [String], input: String? = nil, directory: String? = nil) throws -> Result {
    try start(arguments, input: input, directory: directory).finish()
  }

  /// Runs `arguments` and expects success with exactly `output` and nothing on stderr.
  func expect(
    _ arguments: [String], prints output: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let result = try run(arguments)
    #expect(result.status == 0, "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
    #expect(result.output == output, "\(arguments)", sourceLocation: sourceLocation)
    #expect(result.errors.isEmpty, "\(arguments)", sourceLocation: sourceLocation)
  }

  /// Runs `arguments` and expects exit status 1 with exactly `errors` on stderr.
  func expect(
    _ arguments: [String], fails errors: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let result = try run(arguments)
    #expect(result.status == 1, "\(arguments)", sourceLocation: sourceLocation)
    #expect(result.errors == errors, "\(arguments)", sourceLocation: sourceLocation)
    #expect(result.output.isEmpty, "\(arguments)", sourceLocation: sourceLocation)
  }
}

// MARK: - Helpers

/// Runs `body` with a started daemon and stops it afterwards (kept alive explicitly: a
/// watcher may still be reading after the test's last use of `daemon`).
private func withDaemon(
  _ arguments: [String] = [], _ body: (DaemonProcess) throws -> Void
) throws {
  let daemon = try DaemonProcess(arguments).start()
  defer { daemon.stop() }
  try body(daemon)
}

/// Polls `condition` every 10 ms until it holds; after `seconds`, records `what` (evaluated
/// then) as an issue and throws.
private func waitUntil(
  _ what: @autoclosure () -> String, within seconds: Double = 10,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () throws -> Bool
) throws {
  let deadline = Date().addingTimeInterval(seconds)
  while try !condition() {
    guard Date() < deadline else {
      let message = "timed out waiting until \(what())"
      Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
      throw ControlClient.Failure(description: message)
    }
    usleep(10_000)
  }
}

/// Waits until the daemon counts `count` subscriptions (so a watcher sees what follows).
private func waitForSubscriptions(_ count: Int, on daemon: DaemonProcess) throws {
  let client = try daemon.client()
  try waitUntil("\(count) subscriptions") {
    guard case .bulk(let text?) = try client.call("STATS") else { return false }
    return text.contains("\r\nsubscriptions:\(count)\r\n")
  }
}

private let redisServer = "/usr/bin/redis-server"

/// Runs `body` with the socket of a redis-server started with `arguments` in a temporary
/// directory, and stops it afterwards.
private func withRedisServer(_ arguments: [String], _ body: (String) throws -> Void) throws {
  let directory = try temporaryDirectory()
  let socket = directory + "/redis.sock"
  let process = Process()
  process.executableURL = URL(fileURLWithPath: redisServer)
  process.arguments =
    ["--port", "0", "--unixsocket", socket, "--dir", directory, "--save", ""] + arguments
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  defer {
    kill(process.processIdentifier, SIGKILL)  // SIGTERM may be blocked in a test thread
    process.waitUntilExit()
    try? FileManager.default.removeItem(atPath: directory)
  }
  try waitUntil("redis-server answers") {
    (try? ControlClient(address: socket, timeoutSeconds: 5).call("PING")) != nil
  }
  try body(socket)
}

private func temporaryDirectory() throws -> String {
  let path = NSTemporaryDirectory() + "millctl-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// A pseudo-terminal: the test holds the leader side, millctl gets the follower as its
/// terminal.
private final class PseudoTerminal {
  let leader: Int32
  let follower: FileHandle
  private var received = ""

  /// Linux's TIOCSPTLCK and TIOCGPTN (posix_openpt and friends are not imported into Swift).
  private static let unlock: UInt = 0x4004_5431
  private static let number: UInt = 0x8004_5430

  init() throws {
    leader = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var locked: Int32 = 0
    var index: UInt32 = 0
    guard leader >= 0, ioctl(leader, Self.unlock, &locked) == 0,
      ioctl(leader, Self.number, &index) == 0
    else { throw ControlClient.Failure(description: "no pseudo-terminal") }
    let name = "/dev/pts/\(index)"
    let descriptor = open(name, O_RDWR | O_NOCTTY)
    guard descriptor >= 0 else { throw ControlClient.Failure(description: "cannot open \(name)") }
    follower = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
  }

  deinit { close(leader) }

  /// Closes this process's copy of the follower (the child keeps its own).
  func closeFollower() { try? follower.close() }

  /// Types `keys`.
  func send(_ keys: String) throws {
    let bytes = Array(keys.utf8)
    guard write(leader, bytes, bytes.count) == bytes.count else {
      throw ControlClient.Failure(description: "cannot write to the terminal")
    }
  }

  /// Reads until `text` has appeared since the last match; consumes up to its end.
  func expect(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try waitUntil(
      "the terminal shows \(text.debugDescription) (it shows \(received.debugDescription))",
      within: 5, sourceLocation: sourceLocation
    ) {
      if let range = received.range(of: text) {
        received = String(received[range.upperBound...])
        return true
      }
      var descriptor = pollfd(fd: leader, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 0) > 0 else { return false }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = read(leader, &buffer, buffer.count)
      if count > 0 { received += String(decoding: buffer[0..<count], as: UTF8.self) }
      return false
    }
  }
}
