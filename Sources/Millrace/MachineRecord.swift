/// The bookkeeping of one machine slot: 56 bytes (52 on 32-bit) in the registry the runtime
/// reserves when it is created, so that a machine costs no memory beyond this record, its own block
/// (state, extra, lists of its bounded queues) and the pool cells of the inputs it has queued and
/// the effects it has in flight.
///
/// The typed parts live in the machine's block and in pool cells; the code that knows their
/// types is reached through the runtime's variant table at `variant`, one variant per machine type,
/// queue layout. Observers and routes live in a side record made on first use, which the
/// machine registry's side list holds. Counters are 32-bit and wrap.
@usableFromInline
struct _MachineRecord {
  /// The machine's typed storage; nil while the slot is free.
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
  @usableFromInline var rejected: UInt32 = 0
  @usableFromInline var dropped: UInt32 = 0
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

  /// No slot (end of a list; in `next` of a live machine: not in the ready list).
  @usableFromInline static let none = UInt32.max
  /// In `next`: the last slot of the ready list.
  @usableFromInline static let last = UInt32.max - 1
  /// In `next`: the machine is being dispatched (off the ready list, yet scheduled: inputs
  /// queued meanwhile are taken by its dispatch, or put it back on the list when it yields).
  @usableFromInline static let running = UInt32.max - 2
  /// Flag: the machine is alive.
  @usableFromInline static let alive: UInt16 = 1 << 15
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

  @inlinable
  mutating func setFlag(_ flag: UInt16, _ on: Bool) {
    variantAndFlags = on ? variantAndFlags | flag : variantAndFlags & ~flag
  }
}
