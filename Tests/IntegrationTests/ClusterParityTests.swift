import Foundation
import MillraceClient
import Testing

/// A one-node millraced cluster answers the cluster commands as a one-node redis-server
/// cluster (Debian's 7.0, the version the client matrix records) answers them: the same
/// replies where they name no node, the same shapes where they do.
@Suite("Parity with a redis-server cluster node", .hangGuard)
struct ClusterParityTests {
  /// A redis-server in cluster mode (on loopback ports, which a cluster node needs, and its
  /// Unix socket), owning every slot.
  final class RedisClusterNode {
    let server: RedisParityTests.RedisServer

    init() throws {
      let ports = try DaemonProcess.freePorts(2)
      server = try RedisParityTests.RedisServer { directory in
        [
          "--port", "\(ports[0])", "--bind", "127.0.0.1",
          "--cluster-enabled", "yes", "--cluster-port", "\(ports[1])",
          "--cluster-config-file", directory + "/nodes.conf",
        ]
      }
    }

    /// A client, once the node owns every slot and its state is ok (a few seconds at most).
    func client() throws -> ControlClient {
      let client = try server.client()
      _ = try client.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
      for _ in 0..<200 {
        if try client.call("CLUSTER", "INFO").string?.hasPrefix("cluster_state:ok") == true {
          return client
        }
        usleep(50_000)
      }
      throw ControlClient.Failure(description: "the redis-server cluster node is not ok")
    }
  }

  /// Requests whose replies must be equal, on one connection each side.
  static let requests: [[String]] = [
    ["CLUSTER", "KEYSLOT", "{user1000}.following"], ["CLUSTER", "KEYSLOT", "foo{{bar}}zap"],
    ["CLUSTER", "KEYSLOT"], ["CLUSTER", "KEYSLOT", "a", "b"], ["CLUSTER", "NOPE"], ["CLUSTER"],
    ["CLUSTER", "COUNTKEYSINSLOT", "5"], ["CLUSTER", "COUNTKEYSINSLOT", "x"],
    ["CLUSTER", "COUNTKEYSINSLOT", "16384"], ["CLUSTER", "COUNTKEYSINSLOT", "-1"],
    ["CLUSTER", "GETKEYSINSLOT", "5", "10"], ["CLUSTER", "GETKEYSINSLOT", "5", "-1"],
    ["CLUSTER", "GETKEYSINSLOT", "16384", "1"], ["CLUSTER", "GETKEYSINSLOT", "x", "1"],
    ["CLUSTER", "GETKEYSINSLOT", "1", "x"], ["CLUSTER", "SETSLOT", "16384", "NODE", "x"],
    ["CLUSTER", "SETSLOT", "x", "NODE", "x"], ["CLUSTER", "SETSLOT", "-1", "STABLE"],
    ["CLUSTER", "SETSLOT", "5", "NODE", "nope"], ["CLUSTER", "SETSLOT", "5", "BOGUS"],
    ["CLUSTER", "SETSLOT", "5", "NODE"], ["CLUSTER", "SETSLOT", "5", "STABLE", "x"],
    ["CLUSTER", "SETSLOT", "5"], ["CLUSTER", "SETSLOT", "5", "STABLE"], ["READONLY"],
    ["READWRITE"], ["ASKING"], ["READONLY", "x"], ["WATCH", "a", "b"],
    ["CLUSTER", "SLOTS", "x"], ["CLUSTER", "MYID", "x"],
    // Moving keys: the refusals before any node is involved, and what a missing key gets.
    ["CLUSTER", "SETSLOT", "5", "MIGRATING", "nope"],
    ["CLUSTER", "SETSLOT", "5", "IMPORTING", "x"],
    ["CLUSTER", "SETSLOT", "5", "MIGRATING"], ["DUMP", "nosuch"], ["DBSIZE"],
    ["RESTORE", "x", "0", "junk"], ["MIGRATE", "127.0.0.1", "1", "", "0", "10", "KEYS", "nosuch"],
    ["MIGRATE", "127.0.0.1", "1", "x", "0", "10", "KEYS", "y"],
  ]

  @Test("the same requests get the same replies; SLOTS, SHARDS, NODES and INFO the same shapes")
  func sameReplies() throws {
    let redisNode = try RedisClusterNode()
    let expected = try redisNode.client()
    let cluster = try ClusterNodes([[0...16383]]).start()
    let actual = try cluster.client(0)
    for words in Self.requests {
      let want = try expected.call(words)
      let got = try actual.call(words)
      #expect(got == want, "\(words): redis-server \(want), millraced \(got)")
    }
    for version in ["2", "3"] {
      _ = try expected.call("HELLO", version)
      _ = try actual.call("HELLO", version)
      #expect(
        shape(try actual.call("CLUSTER", "SLOTS")) == shape(try expected.call("CLUSTER", "SLOTS")))
      #expect(
        shape(try actual.call("CLUSTER", "SHARDS"))
          == shape(try expected.call("CLUSTER", "SHARDS")))
      #expect(
        shape(try actual.call("CLUSTER", "MYID")) == shape(try expected.call("CLUSTER", "MYID")))
      let ours = try #require(try actual.call("CLUSTER", "NODES").string)
      let theirs = try #require(try expected.call("CLUSTER", "NODES").string)
      #expect(ours.split(separator: " ").count == theirs.split(separator: " ").count)
      #expect(ours.contains(" myself,master - ") && theirs.contains(" myself,master - "))
      #expect(ours.hasSuffix(" connected 0-16383\n") && theirs.hasSuffix(" connected 0-16383\n"))
      let ourFields = try #require(try actual.call("CLUSTER", "INFO").string).fieldNames
      let theirFields = try #require(try expected.call("CLUSTER", "INFO").string).fieldNames
      #expect(ourFields.allSatisfy(theirFields.contains), "\(ourFields) ⊄ \(theirFields)")
      #expect(Array(ourFields.prefix(9)) == Array(theirFields.prefix(9)))
    }
  }

  /// The reply with every string and integer blanked: its types and nesting.
  private func shape(_ value: RESPValue) -> String {
    switch value {
    case .simple: "+"
    case .error(let text): "-\(text)"
    case .integer: ":"
    case .bulk(let text): text == nil ? "null" : "$"
    case .array(let values):
      values.map { "[" + $0.map(shape).joined(separator: ",") + "]" } ?? "*-1"
    case .map(let pairs): "{" + pairs.map { "\(shape($0.key)):\(shape($0.value))" }.joined() + "}"
    case .verbatim: "="
    default: "\(value)"
    }
  }
}

extension String {
  /// The field names of `name:value` lines.
  fileprivate var fieldNames: [String] {
    split(separator: "\r\n").compactMap { $0.split(separator: ":").first.map(String.init) }
  }
}
