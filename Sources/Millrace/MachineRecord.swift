/// The bookkeeping of one machine slot: 56 bytes in a table the runtime reserves when it is
/// created, so that a machine costs no memory beyond this record, its queue slots, its own
/// state and extra, and the allocator's header of its block (64 bytes with glibc's 8).
///
/// The typed parts live in the machine's block (allocated at spawn: state, extra, bounded
/// queue lists, effect slots, input ring); the code that knows their types is reached through
/// the runtime's kind table at `kind`, one kind per machine type, queue layout and input
/// capacity. Observers and routes live in
/// a side record made on first use. Counters are 32-bit and wrap.
@usableFromInline
struct MachineRecord {
  /// The machine's typed storage; nil while the slot is free.
  @usableFromInline var block: UnsafeMutableRawPointer?
  /// Observers, routes and redirect, made on first use (retained).
  @usableFromInline var side: Unmanaged<MachineSide>?
  /// Distinguishes machines that used this slot at different times.
  @usableFromInline var generation: UInt32 = 1
  /// The next slot in the ready list (or, while the slot is free, in the free list).
  @usableFromInline var next: UInt32 = MachineRecord.none
  @usableFromInline var posted: UInt32 = 0
  @usableFromInline var handled: UInt32 = 0
  @usableFromInline var rejected: UInt32 = 0
  @usableFromInline var dropped: UInt32 = 0
  /// The input ring (its capacity is the kind's): index of the oldest input, inputs queued.
  @usableFromInline var inputHead: UInt16 = 0
  @usableFromInline var inputCount: UInt16 = 0
  @usableFromInline var queueHighWater: UInt16 = 0
  @usableFromInline var effectsHighWater: UInt16 = 0
  /// The first free effect slot, or -1.
  @usableFromInline var freeEffect: Int16 = -1
  @usableFromInline var effectsInFlight: UInt16 = 0
  /// The machine's kind: its index in the runtime's kind table.
  @usableFromInline var kind: UInt16 = 0
  @usableFromInline var flags: UInt8 = 0
  @usableFromInline var reserved: UInt8 = 0

  /// No slot (end of a list).
  @usableFromInline static let none = UInt32.max
  /// Flag: the machine is alive.
  @usableFromInline static let alive: UInt8 = 1
  /// Flag: the slot is in the ready list.
  @usableFromInline static let scheduled: UInt8 = 2

  @inlinable
  init() {}

  /// Whether the machine is alive.
  @inlinable
  var isAlive: Bool {
    get { flags & MachineRecord.alive != 0 }
    set { flags = newValue ? flags | MachineRecord.alive : flags & ~MachineRecord.alive }
  }

  /// Whether the slot is in the ready list.
  @inlinable
  var isScheduled: Bool {
    get { flags & MachineRecord.scheduled != 0 }
    set { flags = newValue ? flags | MachineRecord.scheduled : flags & ~MachineRecord.scheduled }
  }
}
