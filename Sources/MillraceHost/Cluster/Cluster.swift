/// A cluster node's view of its cluster: the map of slots to nodes it routes requests by, read
/// from its map file at start and changed at run time by `CLUSTER SETSLOT` and reloads.
///
/// Guarantees:
/// - No change leaves a machine of this node unreachable: one that would take from this node
///   a slot holding any of its machines is refused (`ClusterChangeError.slotsHoldMachines`),
///   as Redis refuses `CLUSTER SETSLOT` for a slot that still holds keys, and the map stays
///   as it was. (Moving machines with their slots is a later phase: docs/cluster.md.)
/// - A reload that finds the file malformed, or naming another node as `myself`, keeps the map.
/// - A `SETSLOT` change lives in memory: the file is the map at the next start or reload.
/// - Loop thread only.
public final class Cluster {
  /// The map requests are routed by (read on every request that names machines: no dynamic
  /// exclusivity check).
  @exclusivity(unchecked) public private(set) var map: ClusterMap
  /// The map file (`--cluster-config`).
  public let path: String
  /// The host whose machines the map must keep reachable.
  private let host: MachineHost

  /// This node's cluster, with `map` read from `path`, over `host` (which must track slots:
  /// `MachineHost.trackSlots()`). Throws when the host holds machines in slots the map does
  /// not give to this node (restored from the store under another map).
  public init(map: ClusterMap, path: String, host: MachineHost) throws(ClusterChangeError) {
    precondition(host.tracksSlots, "a cluster node's host tracks slots (trackSlots())")
    try Self.check(map, keeps: host)
    self.map = map
    self.path = path
    self.host = host
  }

  /// Gives `slot` to the node whose id is `id` (this node's map only, as Redis's
  /// `CLUSTER SETSLOT <slot> NODE <id>`).
  public func setSlot(_ slot: Int, to id: String) throws(ClusterChangeError) {
    guard let index = map.index(ofID: id) else { throw .unknownNode(id) }
    var next = map
    next.assign(slot, to: index)
    try replace(with: next)
  }

  /// Reads the map file again and routes by it from now on; returns a warning about slots no
  /// node owns, if any.
  @discardableResult
  public func reload() throws(ClusterChangeError) -> String? {
    let next: ClusterMap
    do {
      next = try ClusterMapReader.read(path: path)
    } catch {
      throw .file(error)
    }
    guard next.myselfNode.id == map.myselfNode.id else {
      throw .myselfChanged(from: map.myselfNode.id, to: next.myselfNode.id)
    }
    try replace(with: next)
    return ClusterMapReader.unassignedWarning(next)
  }

  /// Routes by `next` from now on, unless it takes slots that hold machines from this node.
  private func replace(with next: ClusterMap) throws(ClusterChangeError) {
    try Self.check(next, keeps: host)
    map = next
  }

  /// Throws when `host` has machines in slots `map` does not give to this node.
  private static func check(_ map: ClusterMap, keeps host: MachineHost) throws(ClusterChangeError) {
    let stranded = (0..<HashSlot.count).filter {
      !map.isMine($0) && host.machineCount(inSlot: $0) > 0
    }
    guard stranded.isEmpty else {
      throw .slotsHoldMachines(slots: stranded, machines: host.machines(inSlots: stranded))
    }
  }
}
