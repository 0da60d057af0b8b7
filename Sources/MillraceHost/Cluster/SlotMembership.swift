#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Which hosted machines are in which hash slot (`HashSlot` of their names): a count and a
/// doubly linked list of directory slots per hash slot, so that `CLUSTER COUNTKEYSINSLOT` is a
/// read, `CLUSTER GETKEYSINSLOT` walks only the slot's machines, and a change of the cluster
/// map can tell whether a slot it takes away holds machines.
///
/// Kept by a cluster node's host only (`MachineHost.trackSlots()`). The links are two 32-bit
/// words per directory slot, reserved for the directory's capacity with `calloc` and written
/// as machines take slots, so memory grows with the machines hosted (8 bytes each), not with
/// the capacity. Adding and removing a machine is constant time and never allocates.
/// Loop thread only.
final class SlotMembership {
  /// Per directory slot, the next and the previous machine of its hash slot's list, as
  /// directory slot + 1 (0 ends the list).
  private let next: UnsafeMutablePointer<UInt32>
  private let previous: UnsafeMutablePointer<UInt32>
  /// Per hash slot, its list's first machine (directory slot + 1, 0 for none) and its count.
  private var heads = [UInt32](repeating: 0, count: HashSlot.count)
  private var counts = [Int](repeating: 0, count: HashSlot.count)
  /// The directory's capacity.
  let capacity: Int

  /// Membership for a directory of `capacity` slots.
  init(capacity: Int) {
    self.capacity = max(capacity, 1)
    next = calloc(self.capacity, 4)!.bindMemory(to: UInt32.self, capacity: self.capacity)
    previous = calloc(self.capacity, 4)!.bindMemory(to: UInt32.self, capacity: self.capacity)
  }

  deinit {
    free(next)
    free(previous)
  }

  /// Adds the machine in directory slot `index` to hash slot `slot` (it must be in none).
  func insert(_ index: UInt32, slot: Int) {
    precondition(Int(index) < capacity, "a machine slot beyond the directory's capacity")
    let head = heads[slot]
    next[Int(index)] = head
    previous[Int(index)] = 0
    if head != 0 { previous[Int(head - 1)] = index + 1 }
    heads[slot] = index + 1
    counts[slot] += 1
  }

  /// Takes the machine in directory slot `index` out of hash slot `slot` (where it must be).
  func remove(_ index: UInt32, slot: Int) {
    let after = next[Int(index)]
    let before = previous[Int(index)]
    if before == 0 { heads[slot] = after } else { next[Int(before - 1)] = after }
    if after != 0 { previous[Int(after - 1)] = before }
    counts[slot] -= 1
  }

  /// Forgets every machine.
  func removeAll() {
    for slot in heads.indices { heads[slot] = 0 }
    for slot in counts.indices { counts[slot] = 0 }
  }

  /// How many machines are in hash slot `slot`.
  func count(in slot: Int) -> Int { counts[slot] }

  /// Calls `body` with the directory slots of at most `limit` machines of hash slot `slot`,
  /// newest first. `body` must not add or remove machines.
  func forEach(in slot: Int, limit: Int, _ body: (UInt32) -> Void) {
    var link = heads[slot]
    var visited = 0
    while link != 0 && visited < limit {
      body(link - 1)
      link = next[Int(link - 1)]
      visited += 1
    }
  }
}
