import Testing

@testable import MillraceHost

/// The machines of each hash slot, kept in lists through the directory's slots: checked
/// against a plain model through a long random run of additions and removals.
@Suite struct SlotMembershipTests {
  @Test func followsAModelThroughRandomChanges() {
    let capacity = 512
    let slots = [0, 1, 77, 16383]
    let members = SlotMembership(capacity: capacity)
    var model: [Int: Set<UInt32>] = [:]
    var placed: [UInt32: Int] = [:]
    // A fixed linear congruential sequence, so that a failure repeats.
    var state: UInt64 = 26
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    for step in 0..<20_000 {
      let index = UInt32(next() % UInt64(capacity))
      if let slot = placed.removeValue(forKey: index) {
        members.remove(index, slot: slot)
        model[slot]?.remove(index)
      } else {
        let slot = slots[Int(next() % UInt64(slots.count))]
        members.insert(index, slot: slot)
        model[slot, default: []].insert(index)
        placed[index] = slot
      }
      guard step % 997 == 0 else { continue }
      for slot in slots {
        var listed: [UInt32] = []
        members.forEach(in: slot, limit: capacity) { listed.append($0) }
        #expect(Set(listed) == model[slot, default: []] && listed.count == Set(listed).count)
        #expect(members.count(in: slot) == model[slot, default: []].count)
      }
    }
    var few: [UInt32] = []
    members.forEach(in: slots[0], limit: 3) { few.append($0) }
    #expect(few.count == min(3, model[slots[0], default: []].count))
    members.removeAll()
    for slot in slots { #expect(members.count(in: slot) == 0) }
    var none = 0
    members.forEach(in: slots[0], limit: capacity) { _ in none += 1 }
    #expect(none == 0)
  }
}
