import Foundation
import MillraceClient
import MillraceHost
import Testing

/// The Redis-compatible commands answer as redis-server (Debian's, the version the client
/// matrix records) answers the same requests: the same reply types and the same wording for
/// the generic errors.
@Suite("Parity with redis-server")
struct RedisParityTests {
  /// A redis-server on a Unix socket in a temporary directory, without persistence, started
  /// with `extraArguments` besides (later ones win in redis-server's configuration).
  final class RedisServer {
    let directory: String
    let process = Process()

    init(_ extraArguments: (_ directory: String) throws -> [String] = { _ in [] }) throws {
      var template = Array("/tmp/mrr-XXXXXX".utf8CString)
      directory = String(
        cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
      process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
      process.arguments =
        [
          "--port", "0", "--unixsocket", directory + "/r.sock", "--unixsocketperm", "700",
          "--save", "", "--appendonly", "no", "--dir", directory,
        ] + (try extraArguments(directory))
      process.standardOutput = FileHandle.nullDevice
      try process.run()
    }

    deinit {
      // SIGKILL: the test process's children inherit its blocked SIGTERM, which redis-server
      // does not unblock (and there is nothing of it to save).
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      try? FileManager.default.removeItem(atPath: directory)
    }

    func client() throws -> ControlClient {
      for _ in 0..<200 {
        if let client = try? ControlClient(address: directory + "/r.sock", timeoutSeconds: 10) {
          return client
        }
        usleep(25_000)
      }
      throw ControlClient.Failure(description: "redis-server did not start")
    }
  }

  /// Requests whose replies must be equal, in order, on one connection each.
  static let sessions: [[[String]]] = [
    [
      ["PING"], ["PING", "hello"], ["ECHO", "a b"], ["ECHO"], ["SELECT", "0"], ["SELECT", "x"],
      ["FOO", "a", "b"], ["FOO"], ["CLIENT", "FOO"], ["CLIENT", "GETNAME"],
      ["CLIENT", "SETNAME", "a b"], ["CLIENT", "SETNAME", "n"], ["CLIENT", "GETNAME"],
      ["CLIENT", "NO-EVICT", "on"], ["HELLO", "4"], ["HELLO", "x"],
      ["AUTH", "x"], ["QUIT", "now"],
    ],
    [
      ["EXEC"], ["DISCARD"], ["MULTI"], ["MULTI"], ["PING"], ["ECHO", "e"], ["EXEC"],
      ["MULTI"], ["FOO"], ["PING"], ["EXEC"], ["MULTI"], ["ECHO"], ["EXEC"],
      ["MULTI"], ["DISCARD"], ["UNWATCH"],
    ],
    [
      ["UNSUBSCRIBE"], ["PUNSUBSCRIBE"], ["SUBSCRIBE", "a", "b"], ["PSUBSCRIBE", "c*"],
      ["PING"], ["PING", "x"], ["ECHO", "x"], ["UNSUBSCRIBE", "a"], ["PUNSUBSCRIBE"],
      ["UNSUBSCRIBE"], ["PING"],
    ],
    [
      ["SCAN", "x"], ["SCAN", "0", "COUNT", "0"], ["SCAN", "0", "COUNT", "x"],
      ["SCAN", "0", "FOO", "1"], ["SCAN", "0", "MATCH"], ["SCAN"], ["SCAN", "0"],
      ["CONFIG", "GET", "save"], ["CONFIG", "GET", "appendonly"], ["CONFIG", "GET"],
      ["CONFIG", "GET", "nothing-like-it"], ["RESET"], ["COMMAND", "INFO", "nope"],
      ["COMMAND", "GETKEYS", "NOPE", "x"], ["SLOWLOG", "LEN"],
      ["LATENCY", "LATEST"],
    ],
    // A daemon without --cluster-config is a Redis without cluster support.
    [
      ["CLUSTER", "INFO"], ["CLUSTER", "KEYSLOT", "x"], ["CLUSTER", "NOPE"], ["CLUSTER"],
      ["CLUSTER", "HELP"], ["CLUSTER", "SETSLOT", "5"], ["READONLY"], ["READWRITE"],
      ["ASKING"], ["READONLY", "x"],
    ],
  ]

  @Test("the same requests get the same replies", arguments: sessions.indices)
  func sameReplies(session: Int) throws {
    let redis = try RedisServer()
    let daemon = try DaemonProcess(["--durability", "none"]).start()
    let expected = try redis.client()
    let actual = try daemon.client()
    for words in Self.sessions[session] {
      let want = try expected.call(words)
      let got = try actual.call(words)
      #expect(got == want, "\(words): redis-server \(want), millraced \(got)")
    }
  }

  @Test("the reply types of HELLO, INFO, COMMAND and CLIENT are Redis's")
  func sameTypes() throws {
    let redis = try RedisServer()
    let daemon = try DaemonProcess(["--durability", "none"]).start()
    let expected = try redis.client()
    let actual = try daemon.client()
    func shape(_ value: RESPValue) -> String {
      switch value {
      case .simple: "simple"
      case .error(let text): "error \(text.split(separator: " ").first ?? "")"
      case .integer: "integer"
      case .bulk(let text): text == nil ? "null" : "bulk"
      case .array(let values): values.map { "array(\($0.first.map(shape) ?? ""))" } ?? "null array"
      default: "RESP3 \(value)"
      }
    }
    for words in [
      ["HELLO"], ["HELLO", "2"], ["INFO"], ["INFO", "clients"], ["COMMAND", "COUNT"], ["COMMAND"],
      ["COMMAND", "INFO", "ping"], ["COMMAND", "DOCS", "ping"], ["CLIENT", "ID"],
      ["CLIENT", "INFO"],
      ["CLIENT", "LIST"], ["CLIENT", "KILL", "ID", "999999"], ["CONFIG", "GET", "*"],
      ["SLOWLOG", "GET"],
    ] {
      let want = shape(try expected.call(words))
      let got = shape(try actual.call(words))
      #expect(got == want, "\(words)")
    }
  }
}
