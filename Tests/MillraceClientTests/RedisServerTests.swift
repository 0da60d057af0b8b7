import Foundation
import MillraceClient
import Testing

/// The client against a real redis-server (Debian's, 7.0 when these were written; the tests
/// are skipped where it is not installed): every RESP3 type as Redis encodes it, push frames,
/// and the error codes.
@Suite(.enabled(if: RedisServer.isInstalled, "needs redis-server"))
struct RedisServerTests {
  @Test func helloThreeGetsAMapAndHelloFourIsRefused() throws {
    let redis = try RedisServer()
    let client = try redis.client()
    let hello = try client.hello(protocol: .resp3, clientName: "millrace-tests")
    guard case .map = hello else {
      Issue.record("HELLO 3 answered \(hello)")
      return
    }
    #expect(hello["server"]?.string == "redis")
    #expect(hello["proto"] == .integer(3))
    #expect(hello["modules"] == .array([]))
    #expect(try client.call("CLIENT", "GETNAME") == .bulk("millrace-tests"))
    #expect(try client.call("HELLO", "4").errorCode == "NOPROTO")
    #expect(client.protocolVersion == .resp3)

    let resp2 = try redis.client()
    #expect(try resp2.hello(protocol: .resp2)["proto"] == .integer(2))
  }

  /// `DEBUG PROTOCOL <type>` answers one value of each RESP3 type.
  @Test func everyRESP3TypeAsRedisSendsIt() throws {
    let redis = try RedisServer()
    let client = try redis.client()
    try client.hello(protocol: .resp3)
    let expected: [(String, RESPValue)] = [
      ("string", .bulk("Hello World")),
      ("integer", .integer(12345)),
      ("double", .double(3.141)),
      ("bignum", .bigNumber("1234567999999999999999999999999999999")),
      ("null", .null),
      ("array", .array([.integer(0), .integer(1), .integer(2)])),
      ("set", .set([.integer(0), .integer(1), .integer(2)])),
      (
        "map",
        .map([
          .init(.integer(0), .boolean(false)), .init(.integer(1), .boolean(true)),
          .init(.integer(2), .boolean(false)),
        ])
      ),
      ("attrib", .bulk("Some real reply following the attribute")),
      ("true", .boolean(true)),
      ("false", .boolean(false)),
      ("verbatim", .verbatim(format: "txt", text: "This is a verbatim\nstring")),
    ]
    for (type, value) in expected {
      #expect(try client.call("DEBUG", "PROTOCOL", type) == value, "\(type)")
    }
    // A push frame, then the reply Redis sends after it.
    try client.send(["DEBUG", "PROTOCOL", "push"])
    #expect(try client.readReply() == .bulk("Some real reply following the push reply"))
    #expect(try client.readPush() == .push([.bulk("server-cpu-usage"), .integer(42)]))
  }

  @Test func pubSubMessagesArePushFramesInRESP3AndArraysInRESP2() throws {
    let redis = try RedisServer()
    let publisher = try redis.client()
    let resp3 = try redis.client()
    try resp3.hello(protocol: .resp3)
    try resp3.send(["SUBSCRIBE", "d"])
    #expect(try resp3.readPush() == .push([.bulk("subscribe"), .bulk("d"), .integer(1)]))
    let resp2 = try redis.client()
    try resp2.send(["SUBSCRIBE", "d"])
    #expect(try resp2.read() == .array([.bulk("subscribe"), .bulk("d"), .integer(1)]))

    #expect(try publisher.call("PUBLISH", "d", "open closed opened") == .integer(2))
    // In RESP3 a subscribed client may still call; the message waits for readPush().
    #expect(try resp3.call("PING") == .simple("PONG"))
    #expect(try resp3.readPush().strings == ["message", "d", "open closed opened"])
    #expect(try resp2.read().strings == ["message", "d", "open closed opened"])
  }

  @Test func errorCodesAreTheFirstWord() throws {
    let redis = try RedisServer()
    let client = try redis.client()
    #expect(try client.call("SET", "k", "v") == .simple("OK"))
    let wrongType = try client.call("LPUSH", "k", "x")
    #expect(wrongType.errorCode == "WRONGTYPE")
    let arity = try client.call("GET")
    #expect(arity == .error("ERR wrong number of arguments for 'get' command"))
    #expect(arity.errorCode == "ERR")
  }
}

/// A redis-server on a Unix socket in a temporary directory, stopped when released.
final class RedisServer {
  static let executable = "/usr/bin/redis-server"
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

  let directory: String
  let socketPath: String
  private let process = Process()

  init() throws {
    directory = NSTemporaryDirectory() + "millrace-redis-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    socketPath = directory + "/redis.sock"
    process.executableURL = URL(fileURLWithPath: Self.executable)
    process.arguments = [
      "--port", "0", "--unixsocket", socketPath, "--dir", directory, "--save", "",
      "--appendonly", "no", "--enable-debug-command", "local",
    ]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    for _ in 0..<200 {
      if (try? client().call("PING")) == .simple("PONG") { return }
      usleep(25_000)
    }
    throw ControlClient.Failure(description: "redis-server did not start")
  }

  deinit {
    // SIGKILL: a process started from a test thread may have SIGTERM blocked.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    try? FileManager.default.removeItem(atPath: directory)
  }

  func client() throws -> ControlClient {
    try ControlClient(address: socketPath, timeoutSeconds: 5)
  }
}
