/// Where an in-flight effect is in its life.
@usableFromInline
enum _EffectPhase: UInt8 {
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
enum _EffectKind: UInt8 {
  case after, every, job
}

/// A circular doubly-linked list of effect slots threaded through their pool: its first slot
/// (the last is the first's `previous`) and its length.
@usableFromInline
struct _SlotList {
  @usableFromInline var head: UInt32 = _CellPool.none
  @usableFromInline var count: UInt32 = 0

  @usableFromInline
  init() {}
}

/// One in-flight effect of a machine, in a cell of its variant's effect pool.
///
/// `link` and `generation` come first, at offsets every input type shares (checked when the
/// pool is made): the pool keeps its free list in `link` while the cell is free, and the
/// generation outlives the effect, so that a stale token (a delivery, a timer, a job of an
/// effect that ended) never matches the cell's next effect.
@usableFromInline
struct _EffectSlot<Input> {
  /// The next effect of the same machine (newest first), or `_CellPool.none`.
  @usableFromInline var link: UInt32 = _CellPool.none
  @usableFromInline var generation: UInt32 = 1
  /// The previous effect of the same machine, or `_CellPool.none` for its newest.
  @usableFromInline var before: UInt32 = _CellPool.none
  /// The machine's slot in the runtime.
  @usableFromInline var owner: UInt32 = 0
  @usableFromInline var phase = _EffectPhase.free
  @usableFromInline var kind = _EffectKind.after
  @usableFromInline var queue: UInt8 = 0
  @usableFromInline var id = EffectID.none
  @usableFromInline var span = TimeSpan.zero
  @usableFromInline var timer = _TimerHeap.none
  /// Inputs of this effect queued in the machine but not yet dispatched.
  @usableFromInline var pending: UInt32 = 0
  /// The neighbours in its queue's running or waiting list (bounded queues only).
  @usableFromInline var previous: UInt32 = _CellPool.none
  @usableFromInline var next: UInt32 = _CellPool.none
  @usableFromInline var input: Input? = nil
  @usableFromInline var job: Job<Input>? = nil

  @inlinable
  init(owner: UInt32, generation: UInt32) {
    self.owner = owner
    self.generation = generation
  }

  /// Where `generation` is in every `_EffectSlot`, whatever its input type.
  @usableFromInline
  static var generationOffset: Int { MemoryLayout<UInt32>.stride }
}

/// A machine's in-flight effects and the lists of its bounded queues, as a view over its
/// record (the newest effect, count in flight), its variant's effect pool (the slots) and its
/// block (for each `latest` or `oldest` queue a running and a waiting list, 16 bytes). Pure
/// bookkeeping: arming timers and submitting jobs is the typed machine's job.
@usableFromInline
struct _EffectSlots<Input> {
  @usableFromInline
  let record: UnsafeMutablePointer<_MachineRecord>
  @usableFromInline
  let pool: UnsafeMutablePointer<_CellPool>
  @usableFromInline
  let lists: UnsafeMutablePointer<_SlotList>
  @usableFromInline
  let layout: UnsafePointer<_BlockLayout>
  /// The machine's slot in the runtime.
  @usableFromInline
  let owner: UInt32

  @inlinable
  init(
    record: UnsafeMutablePointer<_MachineRecord>, owner: UInt32, block: UnsafeMutableRawPointer,
    pool: UnsafeMutablePointer<_CellPool>, layout: UnsafePointer<_BlockLayout>
  ) {
    self.record = record
    self.owner = owner
    self.pool = pool
    self.layout = layout
    lists = (block + layout.pointee.listsOffset).assumingMemoryBound(to: _SlotList.self)
  }

  /// Initializes a new block's lists (all empty) and the record's effect fields.
  @inlinable
  func initialize() {
    lists.initialize(repeating: _SlotList(), count: 2 * layout.pointee.listCount)
    record.pointee.effectHead = _CellPool.none
    record.pointee.effectsInFlight = 0
  }

  /// Deinitializes the lists of a block about to be freed (its effects were released).
  @inlinable
  func deinitialize() {
    lists.deinitialize(count: 2 * layout.pointee.listCount)
  }

  /// The slot in cell `index`.
  @inlinable
  func slot(_ index: UInt32) -> UnsafeMutablePointer<_EffectSlot<Input>> {
    pool.pointee.cell(index, as: _EffectSlot<Input>.self)
  }

  /// The most effects the machine may have in flight.
  @inlinable
  var capacity: Int { layout.pointee.effectCapacity }

  @inlinable
  var inFlight: Int { Int(record.pointee.effectsInFlight) }

  /// The index of `queue`, which an effect names. Stops the program when the machine has no
  /// such queue: a position past its layout is a programming error (the typed `Effects`
  /// methods cannot make one), and running the effect on another queue would apply a policy
  /// nobody asked for.
  @inlinable
  func queueIndex(_ queue: EffectQueue) -> Int {
    let index = Int(queue.index)
    precondition(index < layout.pointee.queueCount, "an effect names a queue its machine lacks")
    return index
  }

  /// The index of `queue` when the machine has it, else the default queue's (0).
  @inlinable
  func queueIndexOrDefault(_ queue: EffectQueue) -> Int {
    Int(queue.index) < layout.pointee.queueCount ? Int(queue.index) : 0
  }

  /// The running (or waiting) list of queue `queue`, or nil for a `merge` queue.
  @inlinable
  func list(_ queue: Int, waiting: Bool) -> UnsafeMutablePointer<_SlotList>? {
    let index = layout.pointee.queues[queue].lists
    return index < 0 ? nil : lists + (2 * index + (waiting ? 1 : 0))
  }

  /// Takes a slot from the pool (free, with a generation no earlier effect in it had) and
  /// makes it the machine's newest effect; nil when the machine holds `capacity` effects or
  /// the pool is exhausted.
  @inlinable
  func allocate() -> UInt32? {
    guard Int(record.pointee.effectsInFlight) < capacity else { return nil }
    let touched = pool.pointee.touched
    guard let index = pool.pointee.take(as: _EffectSlot<Input>.self) else { return nil }
    let cell = UnsafeMutableRawPointer(slot(index))
    let generation =
      pool.pointee.touched != touched
      ? pool.pointee.generationFloor
      : cell.load(fromByteOffset: _EffectSlot<Input>.generationOffset, as: UInt32.self)
    let slot = cell.bindMemory(to: _EffectSlot<Input>.self, capacity: 1)
    slot.initialize(to: _EffectSlot(owner: owner, generation: generation))
    let head = record.pointee.effectHead
    slot.pointee.link = head
    if head != _CellPool.none { self.slot(head).pointee.before = index }
    record.pointee.effectHead = index
    record.pointee.effectsInFlight &+= 1
    if record.pointee.effectsInFlight > record.pointee.effectsHighWater {
      record.pointee.effectsHighWater = record.pointee.effectsInFlight
    }
    return index
  }

  /// Unlinks `index` from the machine and returns it to the pool under a new generation, so
  /// stale tokens no longer match.
  @inlinable
  func release(_ index: UInt32) {
    let slot = self.slot(index)
    let (link, before) = (slot.pointee.link, slot.pointee.before)
    if before == _CellPool.none {
      record.pointee.effectHead = link
    } else {
      self.slot(before).pointee.link = link
    }
    if link != _CellPool.none { self.slot(link).pointee.before = before }
    var generation = slot.pointee.generation &+ 1
    if generation == 0 { generation = 1 }
    // The slot's references go; the plain data left is overwritten by the next `allocate`.
    // (Field by field: destroying the whole slot goes through its type's value witnesses.)
    if slot.pointee.job != nil { slot.pointee.job = nil }
    if !_isPOD(Input.self) { slot.pointee.input = nil }
    let cell = UnsafeMutableRawPointer(slot)
    cell.storeBytes(
      of: generation, toByteOffset: _EffectSlot<Input>.generationOffset, as: UInt32.self)
    if generation >= pool.pointee.generationFloor {
      pool.pointee.generationFloor = generation == UInt32.max ? 1 : generation + 1
    }
    pool.pointee.give(index, as: _EffectSlot<Input>.self)
    record.pointee.effectsInFlight &-= 1
  }

  /// Whether `token` still names a live effect of this machine.
  @inlinable
  func isLive(slot index: UInt32, generation: UInt32) -> Bool {
    guard index < pool.pointee.touched else { return false }
    let slot = self.slot(index)
    return slot.pointee.generation == generation && slot.pointee.owner == owner
      && slot.pointee.phase != .free
  }

  /// Appends `index` to the running or waiting list of its queue (nothing for `merge`).
  @inlinable
  func append(_ index: UInt32, toWaiting waiting: Bool, of queue: Int) {
    guard let list = list(queue, waiting: waiting) else { return }
    let slot = self.slot(index)
    let head = list.pointee.head
    if head == _CellPool.none {
      slot.pointee.previous = index
      slot.pointee.next = index
      list.pointee.head = index
    } else {
      let tail = self.slot(head).pointee.previous
      slot.pointee.previous = tail
      slot.pointee.next = head
      self.slot(tail).pointee.next = index
      self.slot(head).pointee.previous = index
    }
    list.pointee.count &+= 1
  }

  /// Removes `index` from the running or waiting list of its queue (nothing for `merge`).
  @inlinable
  func unlink(_ index: UInt32, fromWaiting waiting: Bool, of queue: Int) {
    guard let list = list(queue, waiting: waiting) else { return }
    if list.pointee.count == 1 {
      list.pointee.head = _CellPool.none
    } else {
      let previous = slot(index).pointee.previous
      let next = slot(index).pointee.next
      slot(previous).pointee.next = next
      slot(next).pointee.previous = previous
      if list.pointee.head == index { list.pointee.head = next }
    }
    list.pointee.count &-= 1
  }

  /// The slots of queue `queue`, running ones in start order then waiting ones in queue
  /// order (for a `merge` queue: its slots in start order, all running).
  @usableFromInline
  func members(of queue: Int) -> [(index: UInt32, waiting: Bool)] {
    var members: [(index: UInt32, waiting: Bool)] = []
    guard let running = list(queue, waiting: false), let waiting = list(queue, waiting: true)
    else {
      var index = record.pointee.effectHead
      while index != _CellPool.none {
        let slot = self.slot(index)
        if Int(slot.pointee.queue) == queue { members.append((index, false)) }
        index = slot.pointee.link
      }
      return members.reversed()
    }
    for (list, waiting) in [(running.pointee, false), (waiting.pointee, true)] {
      var index = list.head
      for _ in 0..<list.count {
        members.append((index, waiting))
        index = slot(index).pointee.next
      }
    }
    return members
  }
}
