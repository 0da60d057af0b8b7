import Logging
import MillraceUV

/// A daemon started with a cluster map (`--cluster-config`) is a node of that cluster
/// (docs/cluster.md): it listens where the map says clients reach it, unless `--listen` says
/// otherwise, and refuses to start when its store holds machines in slots the map gives to
/// other nodes.
extension Daemon {
  /// The map of `--cluster-config`, read at start; nil without the flag.
  func loadClusterMap() throws(StartupError) -> ClusterMap? {
    guard let path = configuration.clusterConfig else { return nil }
    do {
      let map = try ClusterMapReader.read(path: path)
      if let warning = ClusterMapReader.unassignedWarning(map) {
        logger.warning("\(path): \(warning)")
      }
      return map
    } catch {
      throw StartupError(description: error.description)
    }
  }

  /// Where a cluster node listens when `--listen` is not given: its own address in the map.
  static func listenAddress(of node: ClusterNode) -> String {
    ListenAddress.tcp(host: node.host, port: node.port).description
  }

  /// This node's cluster over `host`, whose restored machines must all be in its slots.
  func startCluster(_ map: ClusterMap?, host: MachineHost) throws(StartupError) -> Cluster? {
    guard let map, let path = configuration.clusterConfig else { return nil }
    do {
      let cluster = try Cluster(map: map, path: path, host: host)
      logger.info(
        "cluster node \(map.myselfNode.id) of \(map.nodes.count), serving \(map.ranges(of: map.myself).count) slot ranges"
      )
      return cluster
    } catch {
      throw StartupError(description: "\(path): \(error) (the store was kept under another map)")
    }
  }

  /// SIGHUP on a cluster node: reads the map file again, or keeps the map and says why.
  static func reloadClusterMap(_ control: ControlServer, path: String?, logger: Logger) {
    guard let path else { return }
    do {
      if let warning = try control.reloadClusterMap() { logger.warning("\(path): \(warning)") }
      logger.info("reloaded the cluster map \(path)")
    } catch {
      logger.error("cluster map reload refused, keeping the current map: \(error)")
    }
  }
}
