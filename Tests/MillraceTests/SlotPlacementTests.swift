import Testing

@testable import Millrace

/// `Runtime.spawn`'s `preferredSlot`: the slot asked for when no machine had it yet, the slots
/// skipped below it free, and any free slot otherwise.
@Suite("Spawning in a preferred slot")
struct SlotPlacementTests {
  @Test("ascending preferred slots with holes are each taken exactly; the holes are taken next")
  func ascendingWithHoles() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 12))
    let log = Logger.Log()
    var slots: [UInt32] = []
    for slot: UInt32 in [0, 3, 4, 9] {
      let machine = try runtime.spawn(
        Logger.self, state: 0, extra: ("p\(slot)", log), preferredSlot: slot)
      slots.append(machine.id.index)
      // Each machine answers under the id it was given.
      #expect(machine.post(Int(slot)) == .accepted)
    }
    #expect(slots == [0, 3, 4, 9])
    runtime.dispatch()
    #expect(log.entries == ["p00", "p33", "p44", "p99"])
    // The holes first, then the slots above the highest.
    var later: [UInt32] = []
    for n in 0..<8 {
      later.append(try runtime.spawn(Logger.self, state: 0, extra: ("n\(n)", log)).id.index)
    }
    #expect(later.prefix(6).sorted() == [1, 2, 5, 6, 7, 8])
    #expect(later.suffix(2) == [10, 11])
    #expect(throws: SpawnError.machineSlotsFull) {
      try runtime.spawn(Logger.self, state: 0, extra: ("x", log), preferredSlot: 1)
    }
    #expect(runtime.statistics.machines == 12)
  }

  @Test("a slot handed out before, taken or freed, or past the capacity gives any free slot")
  func fallsBack() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
    let log = Logger.Log()
    let a = try runtime.spawn(Logger.self, state: 0, extra: ("a", log), preferredSlot: 1)
    #expect(a.id.index == 1)
    // Slot 1 is taken: the free list gives slot 0, the hole left below it.
    let b = try runtime.spawn(Logger.self, state: 0, extra: ("b", log), preferredSlot: 1)
    #expect(b.id.index == 0)
    // Past the capacity: the next slot never handed out.
    let c = try runtime.spawn(Logger.self, state: 0, extra: ("c", log), preferredSlot: 4)
    #expect(c.id.index == 2)
    runtime.remove(a)
    // Slot 3 was never handed out: taken as asked.
    let d = try runtime.spawn(Logger.self, state: 0, extra: ("d", log), preferredSlot: 3)
    #expect(d.id.index == 3)
    // Slot 0 is taken: the free list gives slot 1, freed by `a`, whose handle does not reach
    // the new machine.
    let e = try runtime.spawn(Logger.self, state: 0, extra: ("e", log), preferredSlot: 0)
    #expect(e.id.index == 1)
    #expect(a.post(1) == .noMachine)
    #expect(e.post(1) == .accepted)
    runtime.dispatch()
    #expect(log.entries == ["e1"])
  }

  @Test("skipped slots count as free, not as machines, and their memory is given back")
  func holesAreFree() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 100_000))
    let log = Logger.Log()
    let far = try runtime.spawn(Logger.self, state: 0, extra: ("far", log), preferredSlot: 50_000)
    #expect(far.id.index == 50_000)
    #expect(runtime.statistics.machines == 1)
    runtime.remove(far)
    #expect(runtime.statistics.machines == 0)
    // 50,001 records were written; with no machine left they can be handed back.
    #expect(runtime.releaseMemory() >= 50_001 * MemoryLayout<_MachineRecord>.stride)
    // Afterwards slots are handed out from 0 again, and no old id revives.
    let next = try runtime.spawn(Logger.self, state: 0, extra: ("next", log))
    #expect(next.id.index == 0)
    #expect(far.post(1) == .noMachine)
  }
}
