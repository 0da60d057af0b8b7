/// The store slots of machines changed by name (`MachineStore.save(name:...)`,
/// `delete(name:)`, and the journals of earlier versions replayed at start), whose callers keep
/// no slot: read from the image once, then kept as names are saved and deleted. A name keeps its
/// slot; a new name takes a slot a delete freed, else the one after the highest. Names are told
/// apart by their bytes (two canonically equivalent names are two machines, as in the image).
///
/// Memory: a dictionary entry per stored machine. The daemon, which knows every machine's slot,
/// never builds one.
final class SlotsByName {
  private var slots: [[UInt8]: UInt32] = [:]
  private var freed: [UInt32] = []
  private var next: UInt32 = 0

  /// The slots of the machines in `snapshot`.
  init(_ snapshot: SQLiteSnapshot) throws(StoreError) {
    var slots: [[UInt8]: UInt32] = [:]
    var next: UInt32 = 0
    try snapshot.withRows { (rows) throws(StoreError) in
      while let row = try rows.next() {
        slots[Array(row.name)] = row.slot
        next = max(next, row.slot &+ 1)
      }
    }
    self.slots = slots
    self.next = next
  }

  /// The slot of the machine `name` saved: its own, or a free one for a new name.
  func slot(saving name: [UInt8]) -> UInt32 {
    if let slot = slots[name] { return slot }
    let slot = freed.popLast() ?? next
    if slot == next { next &+= 1 }
    slots[name] = slot
    return slot
  }

  /// The slot of the machine `name` deleted, now free; nil when no machine has the name.
  func slot(deleting name: [UInt8]) -> UInt32? {
    guard let slot = slots.removeValue(forKey: name) else { return nil }
    freed.append(slot)
    return slot
  }
}
