/// Where a request that names machines must be served, decided from the slots of its keys as
/// Redis decides it (`getNodeByQuery`): the first key's slot must have an owner, every other
/// key must be in the same slot, and the owner must be this node; while the slot moves, the
/// request is served where its machines are (`ask`, `tryAgain`).
public enum SlotRoute: Hashable, Sendable {
  /// This node owns the slot: serve the request here.
  case here(slot: Int)
  /// Another node owns the slot: `-MOVED <slot> <host>:<port>`.
  case moved(slot: Int, to: ClusterNode)
  /// The keys are in different slots: `-CROSSSLOT`.
  case crossSlot
  /// No node owns the first key's slot: `-CLUSTERDOWN Hash slot not served`.
  case unassigned(slot: Int)
  /// The slot is migrating from this node and the request's machines are not here (moved, or
  /// never spawned): `-ASK <slot> <host>:<port>`, the client asks the node importing it.
  case ask(slot: Int, to: ClusterNode)
  /// The slot is migrating and some of the request's machines are here, some not: `-TRYAGAIN`
  /// (no node has them all until the move ends).
  case tryAgain
}

extension ClusterMap {
  /// The route of a request whose keys are in `slots`, in request order; nil when it names no
  /// key (it is served wherever it arrives).
  public func route(slots: some Sequence<Int>) -> SlotRoute? {
    var first: Int?
    for slot in slots {
      guard let first else {
        guard ownerIndex(of: slot) != nil else { return .unassigned(slot: slot) }
        first = slot
        continue
      }
      if slot != first { return .crossSlot }
    }
    guard let slot = first, let owner = ownerIndex(of: slot) else { return nil }
    return owner == myself ? .here(slot: slot) : .moved(slot: slot, to: nodes[owner])
  }
}
