/// Where an in-flight effect is in its life.
@usableFromInline
enum EffectPhase: UInt8 {
  /// The slot holds no effect.
  case free
  /// Queued behind others on an `oldest(.suspendNew)` queue; not started.
  case waiting
  /// Started: a timer is armed or a job is out.
  case running
  /// Done, but its inputs are still queued; cancellable until the last one is dispatched.
  case finishing
}

/// The kind of an in-flight effect.
@usableFromInline
enum EffectKind: UInt8 {
  case after, every, job
}

/// A circular doubly-linked list of slots threaded through the slot table: its first slot
/// (the last is the first's `previous`) and its length.
@usableFromInline
struct SlotList {
  @usableFromInline var head: Int16 = -1
  @usableFromInline var count: UInt16 = 0

  @usableFromInline
  init() {}
}

/// One in-flight effect of a machine.
@usableFromInline
struct EffectSlot<Input> {
  @usableFromInline var generation: UInt32 = 1
  @usableFromInline var phase = EffectPhase.free
  @usableFromInline var kind = EffectKind.after
  @usableFromInline var queue: UInt8 = 0
  @usableFromInline var id = EffectID.none
  @usableFromInline var span = TimeSpan.zero
  @usableFromInline var input: Input? = nil
  @usableFromInline var job: Job<Input>? = nil
  @usableFromInline var timer = TimerHeap.none
  /// Inputs of this effect queued in the machine but not yet dispatched.
  @usableFromInline var pending: UInt32 = 0
  @usableFromInline var previous: Int16 = -1
  /// The next slot in its queue's list, or in the free list.
  @usableFromInline var next: Int16 = -1

  @usableFromInline
  init() {}
}

/// A machine's effect slots and the lists of its bounded queues, as a view over its record
/// (free list head, count in flight) and its block (slots; for each `latest` or `oldest`
/// queue a running and a waiting list, 8 bytes). Pure bookkeeping: arming
/// timers and submitting jobs is the typed machine's job.
@usableFromInline
struct EffectSlots<Input> {
  @usableFromInline
  let record: UnsafeMutablePointer<MachineRecord>
  @usableFromInline
  let slots: UnsafeMutablePointer<EffectSlot<Input>>
  @usableFromInline
  let lists: UnsafeMutablePointer<SlotList>
  @usableFromInline
  let layout: UnsafePointer<BlockLayout>

  @inlinable
  init(
    record: UnsafeMutablePointer<MachineRecord>, block: UnsafeMutableRawPointer,
    layout: UnsafePointer<BlockLayout>
  ) {
    self.record = record
    self.layout = layout
    slots = (block + layout.pointee.slotsOffset).assumingMemoryBound(to: EffectSlot<Input>.self)
    lists = (block + layout.pointee.listsOffset).assumingMemoryBound(to: SlotList.self)
  }

  /// Initializes a new block's slots (all free) and lists (all empty).
  @inlinable
  func initialize() {
    for index in 0..<layout.pointee.effectCapacity {
      var slot = EffectSlot<Input>()
      slot.next = index + 1 < layout.pointee.effectCapacity ? Int16(index + 1) : -1
      (slots + index).initialize(to: slot)
    }
    lists.initialize(repeating: SlotList(), count: 2 * layout.pointee.listCount)
    record.pointee.freeEffect = 0
    record.pointee.effectsInFlight = 0
  }

  /// Deinitializes the slots and lists of a block about to be freed.
  @inlinable
  func deinitialize() {
    slots.deinitialize(count: layout.pointee.effectCapacity)
    lists.deinitialize(count: 2 * layout.pointee.listCount)
  }

  @inlinable
  var capacity: Int { layout.pointee.effectCapacity }

  @inlinable
  var inFlight: Int { Int(record.pointee.effectsInFlight) }

  /// The queue an effect naming `queue` runs on (the default one for an undeclared queue).
  @inlinable
  func queueIndex(_ queue: EffectQueue) -> Int {
    Int(queue.index) < layout.pointee.queueCount ? Int(queue.index) : 0
  }

  /// The running (or waiting) list of queue `queue`, or nil for a `merge` queue.
  @inlinable
  func list(_ queue: Int, waiting: Bool) -> UnsafeMutablePointer<SlotList>? {
    let index = layout.pointee.queues[queue].lists
    return index < 0 ? nil : lists + (2 * index + (waiting ? 1 : 0))
  }

  /// Takes a free slot, or nil when all are in use.
  @inlinable
  func allocate() -> Int16? {
    let index = record.pointee.freeEffect
    guard index >= 0 else { return nil }
    record.pointee.freeEffect = slots[Int(index)].next
    record.pointee.effectsInFlight &+= 1
    if record.pointee.effectsInFlight > record.pointee.effectsHighWater {
      record.pointee.effectsHighWater = record.pointee.effectsInFlight
    }
    return index
  }

  /// Returns `index` to the free list; its generation changes so stale tokens no longer match.
  @inlinable
  func release(_ index: Int16) {
    let slot = slots + Int(index)
    slot.pointee.generation &+= 1
    if slot.pointee.generation == 0 { slot.pointee.generation = 1 }
    slot.pointee.phase = .free
    slot.pointee.input = nil
    slot.pointee.job = nil
    slot.pointee.timer = TimerHeap.none
    slot.pointee.pending = 0
    slot.pointee.previous = -1
    slot.pointee.next = record.pointee.freeEffect
    record.pointee.freeEffect = index
    record.pointee.effectsInFlight &-= 1
  }

  /// Whether `token` still names a live effect.
  @inlinable
  func isLive(slot index: UInt32, generation: UInt32) -> Bool {
    Int(index) < layout.pointee.effectCapacity && slots[Int(index)].generation == generation
      && slots[Int(index)].phase != .free
  }

  /// Appends `index` to the running or waiting list of its queue (nothing for `merge`).
  @inlinable
  func append(_ index: Int16, toWaiting waiting: Bool, of queue: Int) {
    guard let list = list(queue, waiting: waiting) else { return }
    let slot = slots + Int(index)
    let head = list.pointee.head
    if head < 0 {
      slot.pointee.previous = index
      slot.pointee.next = index
      list.pointee.head = index
    } else {
      let tail = slots[Int(head)].previous
      slot.pointee.previous = tail
      slot.pointee.next = head
      slots[Int(tail)].next = index
      slots[Int(head)].previous = index
    }
    list.pointee.count &+= 1
  }

  /// Removes `index` from the running or waiting list of its queue (nothing for `merge`).
  @inlinable
  func unlink(_ index: Int16, fromWaiting waiting: Bool, of queue: Int) {
    guard let list = list(queue, waiting: waiting) else { return }
    if list.pointee.count == 1 {
      list.pointee.head = -1
    } else {
      let previous = slots[Int(index)].previous
      let next = slots[Int(index)].next
      slots[Int(previous)].next = next
      slots[Int(next)].previous = previous
      if list.pointee.head == index { list.pointee.head = next }
    }
    list.pointee.count &-= 1
  }

  /// The slots of queue `queue`, running ones in start order then waiting ones in queue
  /// order (for a `merge` queue: its slots in table order, all running).
  @usableFromInline
  func members(of queue: Int) -> [(index: Int16, waiting: Bool)] {
    var members: [(index: Int16, waiting: Bool)] = []
    guard let running = list(queue, waiting: false), let waiting = list(queue, waiting: true)
    else {
      for index in 0..<capacity
      where slots[index].phase != .free && Int(slots[index].queue) == queue {
        members.append((Int16(index), slots[index].phase == .waiting))
      }
      return members
    }
    for (list, waiting) in [(running.pointee, false), (waiting.pointee, true)] {
      var index = list.head
      for _ in 0..<list.count {
        members.append((index, waiting))
        index = slots[Int(index)].next
      }
    }
    return members
  }
}
