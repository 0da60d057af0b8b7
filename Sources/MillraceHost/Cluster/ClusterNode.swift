/// One node of a cluster as the cluster map declares it: the id clients know it by and the
/// address they reach it at (its control socket's TCP address).
public struct ClusterNode: Hashable, Sendable {
  /// The node's id: 40 lower-case hexadecimal characters, as Redis's node ids.
  public var id: String
  /// The host clients connect to, as written in the map (an IPv6 address without brackets).
  public var host: String
  /// The TCP port clients connect to.
  public var port: Int

  /// A node.
  public init(id: String, host: String, port: Int) {
    self.id = id
    self.host = host
    self.port = port
  }

  /// `host:port`, as `-MOVED` and `CLUSTER NODES` write an address (no brackets, as Redis).
  public var address: String { "\(host):\(port)" }

  /// Whether `id` is a node id: 40 characters from `0-9 a-f`.
  public static func isValidID(_ id: some StringProtocol) -> Bool {
    id.utf8.count == 40
      && id.utf8.allSatisfy {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
          || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
      }
  }
}
