import CMillrace

// The records of a runtime: fixed-size structs in the runtime's one block of memory, linked
// by 16-bit indices, so that nothing is allocated after the runtime is made. Sizes below are
// for a 32-bit target (a 64-bit one adds a word per pointer).

/// The index of no record: the end of a list. Pools therefore hold at most 65,534 records.
let _none: UInt16 = 0xFFFF

/// A machine slot: 48 bytes. Its effect queues are `_Queue` entries of the runtime's queue
/// pool (the first also holds the limit of its input queue), its queued inputs records of the
/// input pool, its timers records of the effect pool.
struct _Machine {
  /// The resolver; nil while the slot is free.
  var resolve: millrace_resolve_fn?
  var context: UnsafeMutableRawPointer?
  var state: Int32 = 0
  /// Distinguishes the machines that used this slot (the id's high half, 32 bits as the Swift
  /// core's, so that an id names no later machine before its slot is reused 2^32 times);
  /// never 0.
  var generation: UInt32 = 1
  /// The next slot in the ready list while the machine is in it (`_none` for the last), in
  /// the free list while the slot is free; `_none` otherwise.
  var next: UInt16 = _none
  /// The newest queued input; the inputs form a ring, the newest linked to the oldest.
  var inputTail: UInt16 = _none
  var inputCount: UInt16 = 0
  /// The in-flight effects (armed, fired and not yet delivered, or waiting), oldest first.
  var effectHead: UInt16 = _none
  var observerHead: UInt16 = _none
  /// Queue 0; each entry links to the next queue of the machine.
  var queueHead: UInt16 = _none
  var queueHighWater: UInt16 = 0
  var effectsHighWater: UInt16 = 0
  var posted: UInt32 = 0
  var handled: UInt32 = 0
  var rejected: UInt32 = 0
  var dropped: UInt32 = 0
}

/// A queued input: posted (with its tag) or delivered by a timer, which it names with the
/// generation the timer's cell had, so that a delivery of a timer cancelled meanwhile is
/// recognized and discarded. 16 bytes.
struct _InputCell {
  /// The post's tag; for a timer's delivery, the timer cell's generation.
  var tag: UInt64 = 0
  var input: Int32 = 0
  var next: UInt16 = _none
  /// The timer that delivered it, or `_none`.
  var timer: UInt16 = _none
}

/// An in-flight timer: armed in the heap, fired with its delivery queued, or waiting on its
/// queue. 48 bytes.
struct _EffectCell {
  var deadline: UInt64 = 0
  /// When it was last armed, in the runtime's arming order: among timers due at the same
  /// instant, the one armed first fires first.
  var sequence: UInt64 = 0
  /// The delay of an `after`, the period of an `every`.
  var span: UInt64 = 0
  var id: UInt64 = 0
  var input: Int32 = 0
  var machine: UInt16 = _none
  /// Changes each time the cell is freed (see `_InputCell.tag`).
  var generation: UInt16 = 0
  /// The next effect of the machine, or the next free cell.
  var next: UInt16 = _none
  /// The next effect waiting on the same queue.
  var waitNext: UInt16 = _none
  /// Its place in the timer heap; `_none` while not armed.
  var heap: UInt16 = _none
  /// Which of the machine's queues it runs on.
  var queue: UInt8 = 0
  /// `_EffectCell.every`, `_EffectCell.waiting`.
  var flags: UInt8 = 0

  /// In `flags`: periodic (`every`), else one-shot (`after`).
  static let every: UInt8 = 1
  /// In `flags`: waiting on its queue, not started.
  static let waiting: UInt8 = 2

  /// Periodic (`every`), else one-shot (`after`).
  var isEvery: Bool { flags & _EffectCell.every != 0 }

  /// Waiting on its queue (`oldest` with `suspend`), not started.
  var isWaiting: Bool {
    get { flags & _EffectCell.waiting != 0 }
    set { flags = newValue ? flags | _EffectCell.waiting : flags & ~_EffectCell.waiting }
  }
}

/// One effect queue of a machine: its policy and what runs and waits on it. 14 bytes.
struct _Queue {
  var max: UInt16 = 0
  var running: UInt16 = 0
  var waitHead: UInt16 = _none
  var waitTail: UInt16 = _none
  /// The machine's next queue, or the next free entry.
  var next: UInt16 = _none
  /// In a machine's first queue: the most inputs the machine may have queued (its input
  /// queue's one setting, kept with its effect queues' settings).
  var inputCapacity: UInt16 = 0
  /// A `millrace_policy_t`.
  var policy: UInt8 = 0
}

/// An observer registration. 12 bytes.
struct _Observer {
  var observe: millrace_observer_fn?
  var context: UnsafeMutableRawPointer?
  var next: UInt16 = _none
}

/// An effect a resolver recorded, applied after its reply. 24 bytes.
struct _Recorded {
  var span: UInt64 = 0
  var id: UInt64 = 0
  var value: Int32 = 0
  var kind: UInt8 = 0
  var queue: UInt8 = 0

  static let send: UInt8 = 0
  static let emit: UInt8 = 1
  static let after: UInt8 = 2
  static let every: UInt8 = 3
  static let cancel: UInt8 = 4
}

/// A record that pools link through `next`.
protocol _Linked {
  init()
  var next: UInt16 { get set }
}
extension _Machine: _Linked {}
extension _InputCell: _Linked {}
extension _EffectCell: _Linked {}
extension _Queue: _Linked {}
extension _Observer: _Linked {}

/// A pool of `_Linked` records with its free list.
struct _Pool<Record: _Linked> {
  let records: UnsafeMutablePointer<Record>
  var free: UInt16
  var available: UInt16

  /// `count` blank records at `records`, all free.
  init(_ records: UnsafeMutablePointer<Record>, _ count: UInt16) {
    for index in 0..<Int(count) {
      var record = Record()
      record.next = index + 1 < Int(count) ? UInt16(index + 1) : _none
      (records + index).initialize(to: record)
    }
    self.records = records
    free = count > 0 ? 0 : _none
    available = count
  }

  /// The record at `index`.
  subscript(_ index: UInt16) -> UnsafeMutablePointer<Record> { records + Int(index) }

  /// Takes a free record (its fields as the last user left them), or nil when none is left.
  mutating func take() -> UInt16? {
    let index = free
    guard index != _none else { return nil }
    free = records[Int(index)].next
    available &-= 1
    return index
  }

  /// Frees the record at `index`, which is left as it is but for its link.
  mutating func give(_ index: UInt16) {
    records[Int(index)].next = free
    free = index
    available &+= 1
  }
}
