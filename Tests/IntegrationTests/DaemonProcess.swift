import Foundation
import MillraceClient
import Testing

/// A real `millraced` started in a fresh temporary directory, talked to like a user would.
final class DaemonProcess {
  let directory: String
  let socketPath: String
  var arguments: [String]
  /// Variables set for the daemon on top of the test process's environment, which never
  /// passes `NOTIFY_SOCKET` on (tests run in parallel: a daemon must not notify another
  /// test's socket).
  var environment: [String: String] = [:]
  private(set) var process: Process?
  let log: String

  /// The directory holding the built products (the test bundle's own directory).
  static let productsDirectory: String = {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    return (executable as NSString).deletingLastPathComponent
  }()

  /// The repository root (for examples/machines).
  static let repository: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  static func product(_ name: String) -> String { productsDirectory + "/" + name }

  /// Prepares (but does not start) a daemon with `extraArguments`; machines default to the
  /// shipped examples.
  init(_ extraArguments: [String] = [], machines: String? = nil) {
    var template = Array("/tmp/mrd-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    directory = String(cString: made!)
    socketPath = directory + "/d.sock"
    log = directory + "/daemon.log"
    arguments =
      [
        "--socket", socketPath, "--data", directory + "/data",
        "--machines", machines ?? Self.repository + "/examples/machines",
      ] + extraArguments
  }

  deinit {
    if let process, process.isRunning {
      process.terminate()
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Makes the daemon serve the machine files given (file name to text) from a machines
  /// directory of its own instead of the shipped examples; returns the directory.
  @discardableResult
  func serveMachineFiles(_ files: [String: String]) throws -> String {
    let machines = directory + "/machines"
    try FileManager.default.createDirectory(atPath: machines, withIntermediateDirectories: true)
    let index = try #require(arguments.firstIndex(of: "--machines"))
    arguments[index + 1] = machines
    for (name, text) in files {
      try text.write(toFile: machines + "/" + name, atomically: true, encoding: .utf8)
    }
    return machines
  }

  /// A kind whose `poke` queues a `tock` for itself: a `SEND t poke` resolved as it is read
  /// leaves an input queued, so that the `SEND`s after it in the same read queue behind it
  /// instead of being resolved in place, as they would behind timers or other machines' work
  /// (`pokedIncrements`).
  static let ticker = """
    { "kind": "ticker", "initial": "idle",
      "transitions": [ { "on": "poke", "from": "idle", "effects": [ { "send": "tock" } ] },
                       { "on": "tock", "from": "idle" } ] }
    """

  /// A daemon started with `arguments`, serving the `ticker` kind beside the built-in
  /// `counter`, with a ticker `t` and a counter `c` spawned; and a client of it.
  static func withTicker(_ arguments: [String]) throws -> (DaemonProcess, ControlClient) {
    let daemon = DaemonProcess(arguments)
    try daemon.serveMachineFiles(["ticker.json": ticker])
    try daemon.start()
    let client = try daemon.client()
    #expect(try client.call("SPAWN", "counter", "c") == .simple("OK"))
    #expect(try client.call("SPAWN", "ticker", "t") == .simple("OK"))
    return (daemon, client)
  }

  /// Starts the daemon and waits until its socket answers PING (up to 10 s); `quietly`, until
  /// its log says it is serving, without connecting (a connection wakes its loop).
  @discardableResult
  func start(quietly: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> DaemonProcess
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.product("millraced"))
    process.arguments = arguments
    var variables = ProcessInfo.processInfo.environment
    variables["NOTIFY_SOCKET"] = nil
    process.environment = variables.merging(environment) { $1 }
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    handle.seekToEndOfFile()
    process.standardError = handle
    process.standardOutput = handle
    try process.run()
    self.process = process
    for _ in 0..<200 {
      if quietly {
        if logText.contains("serving (") { return self }
      } else if let client = try? ControlClient(address: socketPath, timeoutSeconds: 5),
        let reply = try? client.call("PING"),
        reply == .simple("PONG") || reply.errorCode == "NOAUTH"
      {
        return self
      }
      guard process.isRunning else { break }
      usleep(50_000)
    }
    Issue.record("millraced did not start:\n\(logText)", sourceLocation: sourceLocation)
    throw ControlClient.Failure(description: "millraced did not start")
  }

  /// Runs `command` to its end (in `directory`, else this process's) and returns its exit
  /// status and output (stdout and stderr).
  static func run(_ command: String, _ arguments: [String], directory: String? = nil) throws
    -> (status: Int32, output: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// A new client connection.
  func client() throws -> ControlClient {
    try ControlClient(address: socketPath, timeoutSeconds: 20)
  }

  /// A new client connection subscribed to `channel` (its confirmation read).
  func subscriber(to channel: String) throws -> ControlClient {
    let client = try client()
    try client.send(["SUBSCRIBE", channel])
    _ = try client.read()
    return client
  }

  /// Sends `signal` and waits for the process to exit; returns its status.
  @discardableResult
  func stop(signal: Int32 = SIGTERM) -> Int32 {
    guard let process else { return -1 }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    self.process = nil
    return process.terminationStatus
  }

  var isRunning: Bool { process?.isRunning ?? false }

  /// Sets the running daemon's file size limit (`ulimit -f`, the soft limit: the daemon's
  /// owner may lift it again) to `bytes`, or lifts it with nil: past it, the kernel fails
  /// writes with `EFBIG`, as a full disk would with `ENOSPC`.
  func limitFileSize(to bytes: Int?, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let limit = bytes.map { "\($0)" } ?? "unlimited"
    let result = try Self.run(
      "/usr/bin/prlimit",
      ["--pid", "\(process!.processIdentifier)", "--fsize=\(limit):unlimited"])
    #expect(result.status == 0, "\(result.output)", sourceLocation: sourceLocation)
  }

  var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

  /// The TCP address the daemon logged (`listening on HOST:PORT`), when it listens on one.
  var tcpAddress: (host: String, port: Int)? {
    for line in logText.split(separator: "\n") {
      guard let range = line.range(of: "listening on ") else { continue }
      let address = String(line[range.upperBound...])
      guard !address.contains("/"), let colon = address.lastIndex(of: ":"),
        let port = Int(address[address.index(after: colon)...])
      else { continue }
      let host = address[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
      return (host, port)
    }
    return nil
  }

  /// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick, so tests running
  /// at once get different ones).
  static func freePort() throws -> Int {
    try freePorts(1)[0]
  }

  /// `count` different TCP ports on 127.0.0.1 that were free a moment ago: each stays bound
  /// until all are picked, so the kernel cannot hand out one of them twice (a port picked and
  /// released at once can come back at the next pick).
  static func freePorts(_ count: Int) throws -> [Int] {
    var descriptors: [Int32] = []
    defer { descriptors.forEach { close($0) } }
    return try (0..<count).map { _ in
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      descriptors.append(descriptor)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
      }
      guard bound else { throw ControlClient.Failure(description: "no free port") }
      return Int(UInt16(bigEndian: address.sin_port))
    }
  }

  /// Runs `redis-cli -s <socket> words...` and returns what it printed (stdout and stderr).
  func redisCLI(_ words: String...) throws -> String {
    try Self.run("/usr/bin/redis-cli", ["-s", socketPath] + words).output
  }
}
