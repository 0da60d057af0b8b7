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

/// A doubly-linked list of slots threaded through the slot table.
@usableFromInline
struct SlotList {
  @usableFromInline var head: Int32 = -1
  @usableFromInline var tail: Int32 = -1
  @usableFromInline var count: Int = 0

  @usableFromInline
  init() {}
}

/// One of a machine's effect queues: its policy and the effects running and waiting on it.
@usableFromInline
struct QueueState {
  @usableFromInline let policy: QueuePolicy
  @usableFromInline let limit: Int
  @usableFromInline var running = SlotList()
  @usableFromInline var waiting = SlotList()

  @usableFromInline
  init(policy: QueuePolicy) {
    self.policy = policy
    self.limit = policy.limit
  }
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
  @usableFromInline var previous: Int32 = -1
  @usableFromInline var next: Int32 = -1

  @usableFromInline
  init() {}
}

/// A machine's fixed table of in-flight effect slots, its queues, and the lists that thread
/// them. Pure bookkeeping: arming timers and submitting jobs is the machine box's job.
@usableFromInline
struct EffectSlots<Input> {
  @usableFromInline
  let slots: UnsafeMutablePointer<EffectSlot<Input>>
  @usableFromInline
  let capacity: Int
  @usableFromInline
  var queues: [QueueState]
  @usableFromInline
  var freeHead: Int32
  @usableFromInline
  var inFlight = 0

  @usableFromInline
  init(capacity: Int, policies: [QueuePolicy]) {
    self.capacity = capacity < 1 ? 1 : capacity
    slots = .allocate(capacity: self.capacity)
    for index in 0..<self.capacity {
      var slot = EffectSlot<Input>()
      slot.next = index + 1 < self.capacity ? Int32(index + 1) : -1
      (slots + index).initialize(to: slot)
    }
    freeHead = 0
    var queues: [QueueState] = []
    for policy in policies.prefix(256) { queues.append(QueueState(policy: policy)) }
    if queues.isEmpty { queues.append(QueueState(policy: .merge)) }
    self.queues = queues
  }

  @usableFromInline
  func deallocate() {
    slots.deinitialize(count: capacity)
    slots.deallocate()
  }

  /// The queue an effect naming `queue` runs on (the default one for an undeclared queue).
  @inlinable
  func queueIndex(_ queue: EffectQueue) -> Int {
    Int(queue.index) < queues.count ? Int(queue.index) : 0
  }

  /// Takes a free slot, or nil when all are in use.
  @inlinable
  mutating func allocate() -> Int32? {
    guard freeHead >= 0 else { return nil }
    let index = freeHead
    freeHead = slots[Int(index)].next
    inFlight += 1
    return index
  }

  /// Returns `index` to the free list; its generation changes so stale tokens no longer match.
  @inlinable
  mutating func release(_ index: Int32) {
    let slot = slots + Int(index)
    slot.pointee.generation &+= 1
    if slot.pointee.generation == 0 { slot.pointee.generation = 1 }
    slot.pointee.phase = .free
    slot.pointee.input = nil
    slot.pointee.job = nil
    slot.pointee.timer = TimerHeap.none
    slot.pointee.pending = 0
    slot.pointee.previous = -1
    slot.pointee.next = freeHead
    freeHead = index
    inFlight -= 1
  }

  /// Whether `token` still names a live effect.
  @inlinable
  func isLive(slot index: UInt32, generation: UInt32) -> Bool {
    Int(index) < capacity && slots[Int(index)].generation == generation
      && slots[Int(index)].phase != .free
  }

  @inlinable
  mutating func append(_ index: Int32, toWaiting waiting: Bool, of queue: Int) {
    var list = waiting ? queues[queue].waiting : queues[queue].running
    slots[Int(index)].previous = list.tail
    slots[Int(index)].next = -1
    if list.tail >= 0 { slots[Int(list.tail)].next = index } else { list.head = index }
    list.tail = index
    list.count += 1
    if waiting { queues[queue].waiting = list } else { queues[queue].running = list }
  }

  @inlinable
  mutating func unlink(_ index: Int32, fromWaiting waiting: Bool, of queue: Int) {
    var list = waiting ? queues[queue].waiting : queues[queue].running
    let previous = slots[Int(index)].previous
    let next = slots[Int(index)].next
    if previous >= 0 { slots[Int(previous)].next = next } else { list.head = next }
    if next >= 0 { slots[Int(next)].previous = previous } else { list.tail = previous }
    list.count -= 1
    if waiting { queues[queue].waiting = list } else { queues[queue].running = list }
  }
}
