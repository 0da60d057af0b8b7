/// The runtime's machine records, reserved at creation, with the free list and the ready
/// list threaded through them.
///
/// A record is first written when its slot is first taken (slots are handed out in order
/// until then, and freed ones reused first), so on a system with virtual memory the registry
/// costs what its high-water mark of machines touched, not its capacity; `releaseMemory`
/// gives it back while no slot is in use.
///
/// Handles hold the registry (not the runtime), so a handle never keeps a runtime alive and an
/// observer that captures a handle forms no cycle through the runtime; the runtime's deinit
/// removes every machine, which releases their observers. A handle that outlives its runtime
/// finds its machine dead.
@usableFromInline
final class _MachineRegistry {
  @usableFromInline
  @exclusivity(unchecked)
  private(set) var records: UnsafeMutablePointer<_MachineRecord>
  /// Each slot's rarely counted events, after the records in their memory (`allocateRecords`).
  @usableFromInline
  private(set) var rareCounts: UnsafeMutablePointer<_RareCounts>
  @usableFromInline
  let capacity: Int
  /// The slot after the last machine slot, whose record is never alive: on the ready list, it
  /// tells the running dispatch to release the observers removed during it
  /// (`Runtime._retire`), at no cost to the dispatches that removed none.
  @usableFromInline
  let release: UInt32
  /// The runtime that owns the registry: valid whenever a machine is alive (the runtime removes
  /// every machine before it goes away), never retained.
  @usableFromInline
  @exclusivity(unchecked)
  var owner: Unmanaged<Runtime>?
  #if !hasFeature(Embedded)
    /// Whether the caller runs on the runtime's thread (`Runtime.confine(to:)`); nil while
    /// the runtime is not confined to one.
    @usableFromInline
    var threadCheck: (() -> Bool)?
  #endif
  /// The runtime's variants, by the index records name them with (kept by the runtime). An
  /// entry's address stays valid for the runtime's life: when the registry grows, the old one is
  /// kept (`retiredVariants`), so a view made before still reads its entry.
  @usableFromInline
  @exclusivity(unchecked)
  private(set) var variants: UnsafeMutablePointer<_VariantEntry>
  private var variantCapacity = 1
  private var retiredVariants: [UnsafeMutablePointer<_VariantEntry>] = []
  @usableFromInline
  @exclusivity(unchecked)
  var freeHead: UInt32
  /// The first slot of the ready list; `_MachineRecord.last` or `_MachineRecord.none` when
  /// the list is empty (a pop copies the popped record's link here as it is, `last` too).
  @usableFromInline
  @exclusivity(unchecked)
  var readyHead = _MachineRecord.none
  /// The last slot of the ready list; meaningful only while the list is not empty.
  @usableFromInline
  @exclusivity(unchecked)
  var readyTail = _MachineRecord.none
  /// Turns the running `Runtime.dispatch` may still take (meaningless outside it): machines'
  /// input paths count their steps down here, where the runtime's loop reads them back.
  @usableFromInline
  @exclusivity(unchecked)
  var stepsLeft = 0
  /// Whether a `Runtime.dispatch` is running (`Runtime._isDispatching`).
  @usableFromInline
  @exclusivity(unchecked)
  var isDispatching = false
  /// Steps dispatched (`RuntimeStatistics.dispatched`), wrapping: a running dispatch counted
  /// its whole limit when it started and takes back its `stepsLeft` when it returns. Beside
  /// `stepsLeft`, so that a dispatch reaches both through the one pointer it holds.
  @usableFromInline
  @exclusivity(unchecked)
  var dispatched: UInt64 = 0
  /// Records written so far (`0..<initialized`); the others were never handed out.
  @usableFromInline
  @exclusivity(unchecked)
  private(set) var initialized: UInt32 = 0
  /// Slots taken and not freed.
  @usableFromInline
  @exclusivity(unchecked)
  private(set) var inUse = 0
  /// Above every generation a freed slot had: a record written afresh starts from it, so that
  /// no id of an earlier machine in its slot (before `releaseMemory`) matches it.
  @usableFromInline
  @exclusivity(unchecked)
  var generationFloor: UInt32 = 1
  /// The last observer registration number handed out (`newObserverToken`).
  private var observerTokens: UInt64 = 0

  /// A registration number no observer of this registry had before.
  @usableFromInline
  func newObserverToken() -> UInt64 {
    observerTokens &+= 1
    return observerTokens
  }

  /// Reserves `capacity` records (at least 1), or nil when the memory cannot be allocated.
  ///
  /// A convenience initializer, so that nothing is allocated for the registry itself unless its
  /// memory is: Embedded Swift does not free the object of a class initializer that fails.
  @usableFromInline
  convenience init?(capacity: Int) {
    // Below the slot markers, with `release`'s slot after the last; on a 32-bit target every
    // `Int` is.
    let capacity = min(max(capacity, 1), Int(exactly: _MachineRecord.running - 1) ?? Int.max)
    guard let records = _MachineRegistry.allocateRecords(capacity) else { return nil }
    guard let variants = _Memory.allocate(_VariantEntry.self, count: 1) else {
      records.deallocate()
      return nil
    }
    guard let sides = _Memory.allocate(UnsafeMutableRawPointer?.self, count: 1) else {
      records.deallocate()
      variants.deallocate()
      return nil
    }
    self.init(capacity: capacity, records: records, variants: variants, sides: sides)
  }

  private init(
    capacity: Int, records: UnsafeMutablePointer<_MachineRecord>,
    variants: UnsafeMutablePointer<_VariantEntry>,
    sides: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    self.capacity = capacity
    self.records = records
    rareCounts = _MachineRegistry.rareCounts(after: records, capacity: capacity)
    release = UInt32(capacity)
    self.variants = variants
    self.sides = sides
    freeHead = _MachineRecord.none
  }

  deinit {
    records.deinitialize(count: Int(initialized))
    (records + Int(release)).deinitialize(count: 1)
    records.deallocate()
    variants.deallocate()
    for registry in retiredVariants { registry.deallocate() }
    sides.deallocate()
  }

  /// Makes room for the entry of variant `index` (the next index, or one written before);
  /// false when the registry must grow and the memory cannot be allocated.
  @usableFromInline
  func reserveVariant(at index: Int) -> Bool {
    if index == variantCapacity {
      guard let grown = _Memory.allocate(_VariantEntry.self, count: 2 * variantCapacity) else {
        return false
      }
      grown.initialize(from: variants, count: variantCapacity)
      retiredVariants.append(variants)
      variants = grown
      variantCapacity *= 2
    }
    return true
  }

  /// Writes the entry of variant `index`, for which `reserveVariant` made room.
  @usableFromInline
  func setVariant(_ entry: _VariantEntry, at index: Int) {
    (variants + index).initialize(to: entry)
  }

  /// The record of the live machine `id` names, or nil.
  @inlinable
  func liveRecord(_ id: MachineID) -> UnsafeMutablePointer<_MachineRecord>? {
    guard id.index < initialized else { return nil }
    let record = records + Int(id.index)
    // A machine's generation changes when it is removed (`retire`): a matching one is alive.
    guard record.pointee.generation == id.generation else { return nil }
    return record
  }

  /// Whether a slot is free.
  @inlinable
  var hasFreeSlot: Bool { freeHead != _MachineRecord.none || Int(initialized) < capacity }

  /// Takes a free slot, or nil when every slot is in use.
  @usableFromInline
  func takeFreeSlot() -> UInt32? {
    let index: UInt32
    if freeHead != _MachineRecord.none {
      index = freeHead
      freeHead = records[Int(index)].next
      records[Int(index)].next = _MachineRecord.none
    } else if Int(initialized) < capacity {
      index = initialized
      _initializeNext(linkedTo: _MachineRecord.none)
    } else {
      return nil
    }
    inUse += 1
    return index
  }

  /// Takes slot `index` when no machine ever had it (at or above the records written so far,
  /// below the capacity), putting the slots skipped below it on the free list; else takes any
  /// free slot as `takeFreeSlot()` does. Nil when every slot is in use. Spawns in ascending
  /// slots into an empty registry so get exactly the slots asked for, and the slots between
  /// them are taken before any above the highest.
  func takeSlot(preferring index: UInt32) -> UInt32? {
    guard index >= initialized, Int(index) < capacity else { return takeFreeSlot() }
    let firstSkipped = initialized
    while initialized < index {
      _initializeNext(linkedTo: initialized + 1 < index ? initialized + 1 : freeHead)
    }
    if firstSkipped < index { freeHead = firstSkipped }
    _initializeNext(linkedTo: _MachineRecord.none)
    inUse += 1
    return index
  }

  /// Writes the record of the first slot never handed out, free, with the generation floor and
  /// `next` as given, and counts it written.
  private func _initializeNext(linkedTo next: UInt32) {
    var record = _MachineRecord()
    record.generation = generationFloor
    record.next = next
    (records + Int(initialized)).initialize(to: record)
    initialized += 1
  }

  /// Gives the slot of a machine being removed a new generation, so that no id of the machine
  /// matches it any more (`liveRecord`), and the next machine in the slot a new id.
  @usableFromInline
  func retire(_ index: UInt32) {
    let record = records + Int(index)
    record.pointee.generation &+= 1
    if record.pointee.generation == 0 { record.pointee.generation = 1 }
    if record.pointee.generation >= generationFloor {
      generationFloor = record.pointee.generation &+ 1
      if generationFloor == 0 { generationFloor = 1 }
    }
  }

  /// Returns a dead (retired), unscheduled slot to the free list.
  @usableFromInline
  func freeSlot(_ index: UInt32) {
    let record = records + Int(index)
    record.pointee.next = freeHead
    freeHead = index
    inUse -= 1
  }

  /// Memory for `capacity` machine records and the `release` slot's, which is initialized
  /// (never alive, on no list), followed by as many `_RareCounts`; nil when it cannot be
  /// allocated.
  static func allocateRecords(_ capacity: Int) -> UnsafeMutablePointer<_MachineRecord>? {
    // Aligned to a cache line, the size of a record: each record is one line.
    let (slots, overflow) = capacity.addingReportingOverflow(1)
    guard !overflow, let bytes = recordsBytes(slots: slots),
      let memory = _Memory.allocate(bytes: bytes, alignment: 64)
    else {
      return nil
    }
    let records = memory.bindMemory(to: _MachineRecord.self, capacity: slots)
    (records + capacity).initialize(to: _MachineRecord())
    return records
  }

  /// The bytes `allocateRecords` takes for `slots` slots: a record and its rare counts each,
  /// rounded up to whole cache lines (C's `aligned_alloc`, which Embedded Swift allocates
  /// with, wants a multiple of the alignment); nil when that does not fit an `Int` (a large
  /// capacity on a 32-bit target), so that the runtime refuses instead of trapping.
  static func recordsBytes(slots: Int) -> Int? {
    let perSlot = MemoryLayout<_MachineRecord>.stride + MemoryLayout<_RareCounts>.stride
    let (bytes, overflow) = perSlot.multipliedReportingOverflow(by: slots)
    guard !overflow, bytes <= Int.max - 63 else { return nil }
    return (bytes + 63) & ~63
  }

  /// Where the rare counts of `allocateRecords(capacity)`'s records start.
  private static func rareCounts(
    after records: UnsafeMutablePointer<_MachineRecord>, capacity: Int
  ) -> UnsafeMutablePointer<_RareCounts> {
    UnsafeMutableRawPointer(records + capacity + 1).bindMemory(
      to: _RareCounts.self, capacity: capacity + 1)
  }

  /// Bytes of records (with their rare counts) written so far.
  @usableFromInline
  var touchedBytes: Int {
    Int(initialized) * (MemoryLayout<_MachineRecord>.stride + MemoryLayout<_RareCounts>.stride)
  }

  /// When no slot is in use and more than `threshold` bytes of records were written, hands
  /// the records' memory to `handOff` (to be deallocated) and reserves it afresh, untouched;
  /// returns whether it did.
  @usableFromInline
  func releaseMemory(
    above threshold: Int, handingOff handOff: (UnsafeMutableRawPointer) -> Void
  ) -> Bool {
    guard inUse == 0, !hasReady, touchedBytes > threshold,
      let fresh = _MachineRegistry.allocateRecords(capacity)
    else { return false }
    records.deinitialize(count: Int(initialized))
    (records + Int(release)).deinitialize(count: 1)
    handOff(UnsafeMutableRawPointer(records))
    records = fresh
    rareCounts = _MachineRegistry.rareCounts(after: fresh, capacity: capacity)
    initialized = 0
    freeHead = _MachineRecord.none
    return true
  }

  /// The side records of machines that have one (`_MachineRecord.side` indexes this; entry 0
  /// is unused). A free entry holds the index of the next free one, shifted left and tagged
  /// with 1 (no side record's address is odd), so that removing a side record never
  /// allocates. Grows only when a side record is made.
  @usableFromInline
  @exclusivity(unchecked)
  private(set) var sides: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  private var sideCapacity = 1
  private var sideCount = 1
  /// The first free entry, or 0.
  private var freeSide: UInt32 = 0

  /// The side record at `index` (non-zero).
  @inlinable
  func side(_ index: UInt32) -> UnsafeMutableRawPointer {
    sides[Int(index)].unsafelyUnwrapped
  }

  /// Adds `side` to the side list; returns its index, or nil when the list must grow and the
  /// memory cannot be allocated.
  @usableFromInline
  func addSide(_ side: UnsafeMutableRawPointer) -> UInt32? {
    if freeSide != 0 {
      let index = freeSide
      freeSide = UInt32(truncatingIfNeeded: UInt(bitPattern: sides[Int(index)]) >> 1)
      sides[Int(index)] = side
      return index
    }
    if sideCount == sideCapacity {
      guard let grown = _Memory.allocate(UnsafeMutableRawPointer?.self, count: sideCapacity * 2)
      else { return nil }
      grown.moveInitialize(from: sides, count: sideCount)
      sides.deallocate()
      sides = grown
      sideCapacity *= 2
    }
    (sides + sideCount).initialize(to: side)
    sideCount += 1
    return UInt32(sideCount - 1)
  }

  /// Frees entry `index` of the side list.
  @usableFromInline
  func removeSide(_ index: UInt32) {
    sides[Int(index)] = UnsafeMutableRawPointer(bitPattern: UInt(freeSide) << 1 | 1)
    freeSide = index
  }

  /// Whether any slot is in the ready list.
  @inlinable
  var hasReady: Bool { readyHead < _MachineRecord.last }

  /// Appends slot `index`, whose record is `record`, to the ready list and marks it
  /// scheduled.
  @inlinable
  func schedule(_ index: UInt32, _ record: UnsafeMutablePointer<_MachineRecord>) {
    record.pointee.next = _MachineRecord.last
    if readyHead >= _MachineRecord.last {
      readyHead = index
    } else {
      records[Int(readyTail)].next = index
    }
    readyTail = index
  }

  /// Puts the `release` slot at the back of the ready list, unless it is there already: the
  /// running dispatch then releases the observers removed meanwhile when it reaches it,
  /// between two machines' steps, where none of them is being called.
  @usableFromInline
  func scheduleRelease() {
    let record = records + Int(release)
    guard record.pointee.next == _MachineRecord.none else { return }
    schedule(release, record)
  }

  /// Removes the first slot of the ready list and marks it running (`_MachineRecord.running`);
  /// answers it with its record, or nil when the list is empty.
  @inlinable
  func takeReady() -> (index: UInt32, record: UnsafeMutablePointer<_MachineRecord>)? {
    let index = readyHead
    guard index < _MachineRecord.last else { return nil }
    let record = records + Int(index)
    readyHead = record.pointee.next
    record.pointee.next = _MachineRecord.running
    return (index, record)
  }
}

/// Counts of a machine's events too rare to take room in its record (`_MachineRecord`, one
/// cache line): inputs its resolver rejected, and inputs dropped at a full queue. Zeroed when
/// the slot's machine is spawned.
@usableFromInline
struct _RareCounts {
  @usableFromInline var rejected: UInt32 = 0
  @usableFromInline var dropped: UInt32 = 0

  @inlinable
  init() {}

  /// Counts an input slot `index`'s resolver rejected (out of line: the path that takes it is
  /// rare, and its callers stay small).
  @usableFromInline
  @inline(never)
  static func countRejected(_ registry: Unmanaged<_MachineRegistry>, _ index: UInt32) {
    registry._withUnsafeGuaranteedRef { $0.rareCounts[Int(index)].rejected &+= 1 }
  }

  /// Counts an input dropped at slot `index`'s full queue (out of line, as `countRejected`).
  @usableFromInline
  @inline(never)
  static func countDropped(_ registry: Unmanaged<_MachineRegistry>, _ index: UInt32) {
    registry._withUnsafeGuaranteedRef { $0.rareCounts[Int(index)].dropped &+= 1 }
  }
}
