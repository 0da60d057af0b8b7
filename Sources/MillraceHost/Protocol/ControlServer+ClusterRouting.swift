import MillraceWire

/// How a cluster node routes requests (docs/cluster.md): by the slots of the machine names a
/// request holds, where its command's key positions say (the same positions `COMMAND`
/// reports, which cluster clients route by).
extension ControlServer {
  /// The route of `frame`, whose machine names are at `keys`; nil when it names none.
  func route(_ frame: Frame, keys: KeyPositions?, in cluster: Cluster) -> SlotRoute? {
    guard let keys else { return nil }
    return cluster.map.route(
      slots: keys.positions(wordCount: frame.count).lazy.map { position in
        frame.withUnsafeBytes(of: position) { Int(HashSlot.of($0)) }
      })
  }

  /// After a change of the map: subscribers of machines in slots no longer this node's are
  /// unsubscribed from them (told as by `UNSUBSCRIBE`), as Redis drops the shard channels of a
  /// slot it loses, rather than left waiting for messages that will never come here.
  func clusterMapChanged() {
    guard let cluster else { return }
    let map = cluster.map
    unsubscribeChannels { !map.isMine(Int(HashSlot.of($0))) }
  }
}
