/// A cluster node's view of its cluster: the map of slots to nodes it routes requests by, read
/// from its map file at start and changed at run time by `CLUSTER SETSLOT` and reloads.
///
/// Guarantees:
/// - No change leaves a machine of this node unreachable: one that would take from this node
///   a slot holding any of its machines is refused (`ClusterChangeError.slotsHoldMachines`),
///   as Redis refuses `CLUSTER SETSLOT` for a slot that still holds keys, and the map stays
///   as it was. Machines leave a slot by moving to the node it is migrating to (`MIGRATE`);
///   a slot this node imports may hold machines it does not own yet.
/// - A reload that finds the file malformed, or naming another node as `myself`, keeps the map.
/// - A `SETSLOT` change is written to the map file (`ClusterMapWriter`) before it takes
///   effect, as Redis writes `nodes.conf`: a restart, after a `kill -9` too (and a power loss
///   under `strict` durability, which flushes it), finds the map the node ran with. When the
///   file cannot be written the change is refused.
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
  /// `CLUSTER SETSLOT <slot> NODE <id>`); the slot is no longer migrating or importing.
  public func setSlot(_ slot: Int, to id: String) throws(ClusterChangeError) {
    guard let index = map.index(ofID: id) else { throw .unknownNode(id) }
    var next = map
    next.assign(slot, to: index)
    try replace(with: next, saving: true)
  }

  /// Marks this node's `slot` as migrating to the node whose id is `id` (`CLUSTER SETSLOT
  /// <slot> MIGRATING <id>`): requests for its machines no longer here are sent there
  /// (`-ASK`).
  public func setMigrating(_ slot: Int, to id: String) throws(ClusterChangeError) {
    guard map.isMine(slot) else { throw .notOwner(slot) }
    let index = try otherNode(id)
    var next = map
    next.markMigrating(slot, to: index)
    try replace(with: next, saving: true)
  }

  /// Marks `slot`, not this node's, as imported from the node whose id is `id` (`CLUSTER
  /// SETSLOT <slot> IMPORTING <id>`): this node serves its requests that follow `ASKING`.
  public func setImporting(_ slot: Int, from id: String) throws(ClusterChangeError) {
    guard !map.isMine(slot) else { throw .alreadyOwner(slot) }
    let index = try otherNode(id)
    var next = map
    next.markImporting(slot, from: index)
    try replace(with: next, saving: true)
  }

  /// Ends the migration or import of `slot` (`CLUSTER SETSLOT <slot> STABLE`).
  public func setStable(_ slot: Int) throws(ClusterChangeError) {
    guard map.migrating[slot] != nil || map.importing[slot] != nil else { return }
    var next = map
    next.close(slot)
    try replace(with: next, saving: true)
  }

  /// The index of the node whose id is `id`, which must not be this one.
  private func otherNode(_ id: String) throws(ClusterChangeError) -> Int {
    guard let index = map.index(ofID: id) else { throw .unknownNode(id) }
    guard index != map.myself else { throw .myselfNamed }
    return index
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
    try replace(with: next, saving: false)
    return ClusterMapReader.unassignedWarning(next)
  }

  /// Routes by `next` from now on, unless it takes slots that hold machines from this node;
  /// `saving` writes it to the map file first.
  private func replace(with next: ClusterMap, saving: Bool) throws(ClusterChangeError) {
    try Self.check(next, keeps: host)
    if saving {
      do {
        try ClusterMapWriter.write(next, to: path, sync: host.durability == .strict)
      } catch {
        throw .unwritable(path: path, error.description)
      }
    }
    map = next
  }

  /// Throws when `host` has machines in slots `map` neither gives to this node nor imports.
  private static func check(_ map: ClusterMap, keeps host: MachineHost) throws(ClusterChangeError) {
    let stranded = (0..<HashSlot.count).filter {
      !map.isMine($0) && map.importing[$0] == nil && host.machineCount(inSlot: $0) > 0
    }
    guard stranded.isEmpty else {
      throw .slotsHoldMachines(slots: stranded, machines: host.machines(inSlots: stranded))
    }
  }
}
