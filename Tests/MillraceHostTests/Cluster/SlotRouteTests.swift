import Testing

@testable import MillraceHost

/// Where a request is served, decided as Redis's `getNodeByQuery` decides it, and the error
/// each refusal becomes on the wire.
@Suite struct SlotRouteTests {
  /// Node 0 (this one) owns 0-99, node 1 owns 100-16283, slots 16284-16383 have no owner.
  let map: ClusterMap = {
    var owners = [UInt16](repeating: ClusterMap.unassigned, count: HashSlot.count)
    for slot in 0..<100 { owners[slot] = 0 }
    for slot in 100..<16284 { owners[slot] = 1 }
    let nodes = [
      ClusterNode(id: String(repeating: "a", count: 40), host: "127.0.0.1", port: 7001),
      ClusterNode(id: String(repeating: "b", count: 40), host: "::1", port: 7002),
    ]
    return ClusterMap(nodes: nodes, myself: 0, owners: owners)
  }()

  @Test func aRequestWithoutKeysIsServedWhereItArrives() {
    #expect(map.route(slots: []) == nil)
  }

  @Test func ownSlotsAreServedHere() {
    #expect(map.route(slots: [5]) == .here(slot: 5))
    #expect(map.route(slots: [99, 99, 99]) == .here(slot: 99))
  }

  @Test func anotherNodesSlotIsMoved() {
    #expect(map.route(slots: [100]) == .moved(slot: 100, to: map.nodes[1]))
    #expect(map.route(slots: [16283, 16283]) == .moved(slot: 16283, to: map.nodes[1]))
    #expect(
      ReplyError(refusing: .moved(slot: 100, to: map.nodes[1]))
        == ReplyError("MOVED", "100 ::1:7002"))
    #expect(
      ReplyError(refusing: .moved(slot: 7, to: map.nodes[0]))
        == ReplyError("MOVED", "7 127.0.0.1:7001"))
  }

  @Test func keysInSeveralSlotsAreCrossSlot() {
    #expect(map.route(slots: [1, 2]) == .crossSlot)
    #expect(map.route(slots: [1, 1, 200]) == .crossSlot)
    // Before ownership: a cross-slot request is refused even when every slot is another's.
    #expect(map.route(slots: [200, 300]) == .crossSlot)
    #expect(
      ReplyError(refusing: .crossSlot)
        == ReplyError("CROSSSLOT", "Keys in request don't hash to the same slot"))
  }

  @Test func anUnservedSlotIsClusterDown() {
    #expect(map.route(slots: [16300]) == .unassigned(slot: 16300))
    // Redis looks at the first key's owner before comparing slots ...
    #expect(map.route(slots: [16300, 5]) == .unassigned(slot: 16300))
    // ... and compares the others' slots only.
    #expect(map.route(slots: [5, 16300]) == .crossSlot)
    #expect(
      ReplyError(refusing: .unassigned(slot: 16300))
        == ReplyError("CLUSTERDOWN", "Hash slot not served"))
  }

  @Test func servedHereIsNoError() {
    #expect(ReplyError(refusing: .here(slot: 3)) == nil)
  }

  @Test func reassigningASlotChangesItsRoute() {
    var changed = map
    changed.assign(100, to: 0)
    changed.assign(5, to: 1)
    #expect(changed.route(slots: [100]) == .here(slot: 100))
    #expect(changed.route(slots: [5]) == .moved(slot: 5, to: map.nodes[1]))
    #expect(changed.ranges.map(\.slots) == [0...4, 5...5, 6...100, 101...16283])
  }
}
