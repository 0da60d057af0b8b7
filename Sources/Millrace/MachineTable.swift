/// The runtime's machine records, reserved at creation, with the free list and the ready
/// list threaded through them.
///
/// Handles hold the table (not the runtime), so a handle never keeps a runtime alive and an
/// observer that captures a handle forms no cycle through the runtime; the runtime's deinit
/// removes every machine, which releases their observers. A handle that outlives its runtime
/// finds its machine dead.
@usableFromInline
final class MachineTable {
  @usableFromInline
  let records: UnsafeMutablePointer<MachineRecord>
  @usableFromInline
  let capacity: Int
  /// The runtime that owns the table: valid whenever a machine is alive (the runtime removes
  /// every machine before it goes away), never retained.
  @usableFromInline
  @exclusivity(unchecked)
  var owner: Unmanaged<Runtime>?
  /// The runtime's kinds, by the index records name them with (kept by the runtime).
  @usableFromInline
  @exclusivity(unchecked)
  var kinds: UnsafeMutablePointer<KindEntry>
  @usableFromInline
  @exclusivity(unchecked)
  var freeHead: UInt32
  @usableFromInline
  @exclusivity(unchecked)
  var readyHead = MachineRecord.none
  @usableFromInline
  @exclusivity(unchecked)
  var readyTail = MachineRecord.none

  @usableFromInline
  init(capacity: Int) {
    self.capacity = capacity
    records = .allocate(capacity: capacity)
    records.initialize(repeating: MachineRecord(), count: capacity)
    for index in 0..<capacity {
      records[index].next = index + 1 < capacity ? UInt32(index + 1) : MachineRecord.none
    }
    freeHead = 0
    kinds = .allocate(capacity: 1)
  }

  deinit {
    records.deinitialize(count: capacity)
    records.deallocate()
    kinds.deallocate()
  }

  /// The record of the live machine `id` names, or nil.
  @inlinable
  func liveRecord(_ id: MachineID) -> UnsafeMutablePointer<MachineRecord>? {
    guard Int(id.index) < capacity else { return nil }
    let record = records + Int(id.index)
    guard record.pointee.generation == id.generation, record.pointee.isAlive else { return nil }
    return record
  }

  /// Takes a free slot, or nil when every slot is in use.
  @usableFromInline
  func takeFreeSlot() -> UInt32? {
    guard freeHead != MachineRecord.none else { return nil }
    let index = freeHead
    freeHead = records[Int(index)].next
    records[Int(index)].next = MachineRecord.none
    return index
  }

  /// Returns a dead, unscheduled slot to the free list under a new generation.
  @usableFromInline
  func freeSlot(_ index: UInt32) {
    let record = records + Int(index)
    record.pointee.generation &+= 1
    if record.pointee.generation == 0 { record.pointee.generation = 1 }
    record.pointee.next = freeHead
    freeHead = index
  }

  /// Whether any slot is in the ready list.
  @inlinable
  var hasReady: Bool { readyHead != MachineRecord.none }

  /// Appends slot `index` to the ready list and marks it scheduled.
  @inlinable
  func schedule(_ index: UInt32) {
    records[Int(index)].next = MachineRecord.last
    if readyTail == MachineRecord.none {
      readyHead = index
    } else {
      records[Int(readyTail)].next = index
    }
    readyTail = index
  }

  /// Removes the first slot of the ready list, no longer scheduled, or nil.
  @inlinable
  func popReady() -> UInt32? {
    let index = readyHead
    guard index != MachineRecord.none else { return nil }
    let next = records[Int(index)].next
    if next == MachineRecord.last {
      readyHead = MachineRecord.none
      readyTail = MachineRecord.none
    } else {
      readyHead = next
    }
    records[Int(index)].next = MachineRecord.none
    return index
  }
}
