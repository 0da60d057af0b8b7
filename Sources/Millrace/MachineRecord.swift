/// The bookkeeping of one machine slot: 64 bytes on 64-bit and 32-bit targets alike, one cache
/// line (the registry's records are aligned to it), in the registry the runtime reserves when it is created, so that a machine
/// costs no memory beyond this record, its own block (state, extra, lists of its bounded
/// queues), its rare counts (`_RareCounts`, 8 bytes beside the records) and the pool cells of
/// the inputs it has queued and the effects it has in flight. A block of up to
/// `inlineBlockBytes` lives in the record itself (`holdsInline`): a machine whose state, inline
/// input and extra fit there costs 72 bytes in all, and reaching its block reads no other line.
///
/// The typed parts live in the machine's block and in pool cells; the code that knows their
/// types is reached through the runtime's variant table at `variant`, one variant per machine type,
/// queue layout. Observers and routes live in a side record made on first use, which the
/// machine registry's side list holds. Counters are 32-bit and wrap.
@usableFromInline
struct _MachineRecord {
  /// The machine's typed storage: `_blockArea` when it fits there (`holdsInline`), else a block
  /// of the variant's pool; nil while the slot is free. A view reads it with one load.
  @usableFromInline var block: UnsafeMutableRawPointer?
  /// Distinguishes machines that used this slot at different times.
  @usableFromInline var generation: UInt32 = 1
  /// While the machine is in the ready list, the next slot in it (`_MachineRecord.last` for
  /// the last one); `_MachineRecord.running` while its inputs are being dispatched (it is then
  /// off the list, and its dispatch puts it back if it yields with inputs left);
  /// `_MachineRecord.none` otherwise. While the slot is free, the next slot in the free list.
  /// Scheduling is read from here rather than from a flag, so that posting and dispatching
  /// only store to it and never read-modify-write a shared word.
  @usableFromInline var next: UInt32 = _MachineRecord.none
  @usableFromInline var posted: UInt32 = 0
  @usableFromInline var handled: UInt32 = 0
  /// The queued inputs in cells of the variant's input pool, in a circular list, each linked to
  /// the next newer one and the newest to the oldest; this is the newest (`_CellPool.none`
  /// when no input is queued), or `_MachineRecord.inputInBlock` when the only queued input
  /// waits in the machine's block (`_TypedMachine.inlineInput`).
  @usableFromInline var inputTail: UInt32 = _CellPool.none
  /// The in-flight effects: cells of the variant's effect pool, linked newest first.
  @usableFromInline var effectHead: UInt32 = _CellPool.none
  /// Observers, routes and redirect (a `_MachineSide<M>`), made on first use: the index of its
  /// pointer in the machine registry's side list, 0 for none.
  @usableFromInline var side: UInt32 = 0
  @usableFromInline var inputCount: UInt16 = 0
  /// The most inputs the machine may have queued.
  @usableFromInline var inputCapacity: UInt16 = 0
  @usableFromInline var queueHighWater: UInt16 = 0
  @usableFromInline var effectsHighWater: UInt16 = 0
  @usableFromInline var effectsInFlight: UInt16 = 0
  /// The machine's variant (its index in the runtime's variant table) in the low 14 bits, and the
  /// alive flag.
  @usableFromInline var variantAndFlags: UInt16 = 0
  /// The machine's block when it fits (`holdsInline`); unused otherwise. Last, at
  /// `blockAreaOffset`.
  @usableFromInline var _blockArea: (UInt64, UInt64) = (0, 0)

  /// No slot (end of a list; in `next` of a live machine: not in the ready list).
  @usableFromInline static let none = UInt32.max
  /// In `next`: the last slot of the ready list.
  @usableFromInline static let last = UInt32.max - 1
  /// In `next`: the machine is being dispatched (off the ready list, yet scheduled: inputs
  /// queued meanwhile are taken by its dispatch, or put it back on the list when it yields).
  @usableFromInline static let running = UInt32.max - 2
  /// Flag: the machine is alive.
  @usableFromInline static let alive: UInt16 = 1 << 15
  /// The most bytes of block a record holds itself.
  @usableFromInline static let inlineBlockBytes = MemoryLayout<(UInt64, UInt64)>.size
  /// Where `_blockArea` starts in a record: its last bytes.
  @usableFromInline static let blockAreaOffset =
    MemoryLayout<_MachineRecord>.size - MemoryLayout<(UInt64, UInt64)>.size
  /// In `inputTail`: the machine's only queued input waits in its block, not in a pool cell
  /// (no cell index is this high: `RuntimeCapacity.maxPoolCells`).
  @usableFromInline static let inputInBlock = UInt32.max - 1
  /// The bits of `variantAndFlags` that hold the variant.
  @usableFromInline static let variantMask: UInt16 = (1 << 14) - 1

  @inlinable
  init() {}

  /// The machine's variant: its index in the runtime's variant table.
  @inlinable
  var variant: UInt16 {
    get { variantAndFlags & _MachineRecord.variantMask }
    set {
      variantAndFlags =
        variantAndFlags & ~_MachineRecord.variantMask | newValue & _MachineRecord.variantMask
    }
  }

  /// Whether the machine is alive.
  @inlinable
  var isAlive: Bool {
    get { variantAndFlags & _MachineRecord.alive != 0 }
    set { setFlag(_MachineRecord.alive, newValue) }
  }

  /// Whether the slot is in the ready list or being dispatched (meaningful while the machine
  /// has a block): a post then needs not schedule it, and a removal leaves its slot to the
  /// dispatch that will take it off.
  @inlinable
  var isScheduled: Bool { next != _MachineRecord.none }

  /// Whether a block of `layout` lives in the record (its `_blockArea`).
  @inlinable
  static func holdsInline(_ layout: UnsafePointer<_BlockLayout>) -> Bool {
    layout.pointee.blockBytes <= inlineBlockBytes && layout.pointee.alignment <= 16
  }

  @inlinable
  mutating func setFlag(_ flag: UInt16, _ on: Bool) {
    variantAndFlags = on ? variantAndFlags | flag : variantAndFlags & ~flag
  }
}

extension UnsafeMutablePointer where Pointee == _MachineRecord {
  /// Where a block that fits lives: the record's `_blockArea`.
  @inlinable
  var _blockArea: UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(self) + _MachineRecord.blockAreaOffset
  }

  /// Whether the machine's block is the record's own `_blockArea`.
  @inlinable
  var _isBlockInline: Bool { pointee.block == _blockArea }
}
