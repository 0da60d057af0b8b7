/// Which node owns which of the 16,384 hash slots (`HashSlot`), and which node is this one: the
/// static map a cluster node is started with (`ClusterMapReader`), changed at run time by
/// `CLUSTER SETSLOT` and reloads (`Cluster`).
///
/// A slot may also be open, while its machines move between nodes (docs/cluster.md): this node
/// is *migrating* one of its slots to another node, or *importing* another node's slot, as
/// Redis's `CLUSTER SETSLOT <slot> MIGRATING|IMPORTING <id>` say.
///
/// Guarantees: every slot has at most one owner; `myself` is one of `nodes`; node ids and
/// addresses are unique; a migrating slot is this node's and goes to another node, an importing
/// slot is not this node's and comes from another node, and no slot is both. Looking up a
/// slot's owner is an array read.
public struct ClusterMap: Hashable, Sendable {
  /// The nodes, in the order the map declares them.
  public private(set) var nodes: [ClusterNode]
  /// The index in `nodes` of this node.
  public let myself: Int
  /// The owner of each slot, as an index in `nodes`, or `unassigned`.
  private(set) var owners: [UInt16]
  /// This node's slots migrating to another node, each with that node's index in `nodes`.
  public private(set) var migrating: [Int: Int] = [:]
  /// The slots this node imports from another node, each with that node's index in `nodes`.
  public private(set) var importing: [Int: Int] = [:]

  /// The owner of a slot no node serves.
  static let unassigned = UInt16.max
  /// The most nodes a map holds (Redis advises clusters of at most about a thousand).
  public static let maxNodes = 1_000

  /// A map of `nodes` where `owners[slot]` is the owning node's index (`unassigned` for
  /// none); `myself` indexes `nodes`.
  init(nodes: [ClusterNode], myself: Int, owners: [UInt16]) {
    precondition(owners.count == HashSlot.count && nodes.indices.contains(myself))
    precondition(nodes.count <= Self.maxNodes)
    self.nodes = nodes
    self.myself = myself
    self.owners = owners
  }

  /// This node.
  public var myselfNode: ClusterNode { nodes[myself] }

  /// The index in `nodes` of the owner of `slot`, or nil when no node serves it.
  public func ownerIndex(of slot: Int) -> Int? {
    let owner = owners[slot]
    return owner == Self.unassigned ? nil : Int(owner)
  }

  /// Whether this node owns `slot`.
  public func isMine(_ slot: Int) -> Bool { owners[slot] == UInt16(myself) }

  /// The index in `nodes` of the node whose id is `id`.
  public func index(ofID id: some StringProtocol) -> Int? {
    nodes.firstIndex { $0.id == id }
  }

  /// Gives `slot` to the node at `index` in `nodes`; the slot is no longer open.
  public mutating func assign(_ slot: Int, to index: Int) {
    precondition(nodes.indices.contains(index))
    owners[slot] = UInt16(index)
    close(slot)
  }

  /// Whether any slot is migrating or importing (routing looks further only then).
  public var hasOpenSlots: Bool { !migrating.isEmpty || !importing.isEmpty }

  /// Marks this node's `slot` as migrating to the node at `index` (another node).
  mutating func markMigrating(_ slot: Int, to index: Int) {
    precondition(isMine(slot) && index != myself && nodes.indices.contains(index))
    importing[slot] = nil
    migrating[slot] = index
  }

  /// Marks `slot`, another node's or none's, as imported from the node at `index`.
  mutating func markImporting(_ slot: Int, from index: Int) {
    precondition(!isMine(slot) && index != myself && nodes.indices.contains(index))
    migrating[slot] = nil
    importing[slot] = index
  }

  /// Ends the migration or import of `slot`, if any.
  public mutating func close(_ slot: Int) {
    migrating[slot] = nil
    importing[slot] = nil
  }

  /// The runs of consecutive slots with one owner, in slot order, each with its owner's index
  /// (unassigned slots are left out): `CLUSTER SLOTS`'s ranges.
  public var ranges: [(slots: ClosedRange<Int>, owner: Int)] {
    var runs: [(slots: ClosedRange<Int>, owner: Int)] = []
    var start = 0
    for slot in 1...HashSlot.count {
      guard slot == HashSlot.count || owners[slot] != owners[start] else { continue }
      if owners[start] != Self.unassigned { runs.append((start...(slot - 1), Int(owners[start]))) }
      start = slot
    }
    return runs
  }

  /// The ranges of slots the node at `index` owns, in slot order.
  public func ranges(of index: Int) -> [ClosedRange<Int>] {
    ranges.filter { $0.owner == index }.map(\.slots)
  }

  /// How many slots have an owner.
  public var assignedCount: Int { owners.reduce(0) { $0 + ($1 == Self.unassigned ? 0 : 1) } }

  /// How many nodes own at least one slot (`CLUSTER INFO`'s `cluster_size`).
  public var size: Int { Set(owners.filter { $0 != Self.unassigned }).count }
}
