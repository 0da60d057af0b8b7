/// The runtime's timers: an indexed binary min-heap over a fixed table of entries, ordered by
/// deadline and then by arming order, so timers due at the same instant fire in the order
/// they were armed. Arm, cancel and reschedule are O(log n) and never allocate.
@usableFromInline
struct TimerHeap {
  /// One armed timer: whom to tell, and when.
  @usableFromInline
  struct Entry {
    @usableFromInline var deadline: UInt64 = 0
    @usableFromInline var sequence: UInt64 = 0
    @usableFromInline var period: UInt64 = 0
    @usableFromInline var owner = MachineID(index: 0, generation: 0)
    @usableFromInline var slot: UInt32 = 0
    @usableFromInline var slotGeneration: UInt32 = 0
    /// Position in `heap` while armed; the next free entry while free.
    @usableFromInline var position: Int32 = -1

    @inlinable
    init() {}

    @inlinable
    init(
      deadline: UInt64, sequence: UInt64, period: UInt64, owner: MachineID, slot: UInt32,
      slotGeneration: UInt32, position: Int32
    ) {
      self.deadline = deadline
      self.sequence = sequence
      self.period = period
      self.owner = owner
      self.slot = slot
      self.slotGeneration = slotGeneration
      self.position = position
    }
  }

  @usableFromInline
  let entries: UnsafeMutablePointer<Entry>
  @usableFromInline
  let heap: UnsafeMutablePointer<UInt32>
  @usableFromInline
  let capacity: Int
  @usableFromInline
  var count = 0
  @usableFromInline
  var freeHead: Int32
  @usableFromInline
  var nextSequence: UInt64 = 0

  /// The marker for "no timer".
  @usableFromInline
  static let none = UInt32.max

  @usableFromInline
  init(capacity: Int) {
    self.capacity = capacity < 1 ? 1 : capacity
    entries = .allocate(capacity: self.capacity)
    heap = .allocate(capacity: self.capacity)
    for index in 0..<self.capacity {
      var entry = Entry()
      entry.position = index + 1 < self.capacity ? Int32(index + 1) : -1
      (entries + index).initialize(to: entry)
    }
    freeHead = 0
  }

  @usableFromInline
  func deallocate() {
    entries.deallocate()
    heap.deallocate()
  }

  /// The earliest deadline, if any timer is armed.
  @inlinable
  var earliestDeadline: UInt64? {
    count > 0 ? entries[Int(heap[0])].deadline : nil
  }

  /// The handle of the earliest timer; only valid when `count > 0`.
  @inlinable
  var earliest: UInt32 { heap[0] }

  /// Arms a timer; returns its handle, or nil when every entry is in use.
  @inlinable
  mutating func arm(
    deadline: UInt64, period: UInt64, owner: MachineID, slot: UInt32, slotGeneration: UInt32
  ) -> UInt32? {
    guard freeHead >= 0 else { return nil }
    let handle = UInt32(freeHead)
    freeHead = entries[Int(handle)].position
    nextSequence &+= 1
    entries[Int(handle)] = Entry(
      deadline: deadline, sequence: nextSequence, period: period, owner: owner, slot: slot,
      slotGeneration: slotGeneration, position: Int32(count))
    heap[count] = handle
    count += 1
    siftUp(count - 1)
    return handle
  }

  /// Disarms the timer `handle`; its entry becomes free.
  @inlinable
  mutating func disarm(_ handle: UInt32) {
    let position = Int(entries[Int(handle)].position)
    count -= 1
    if position != count {
      move(heap[count], to: position)
      siftDown(position)
      siftUp(position)
    }
    entries[Int(handle)].position = freeHead
    freeHead = Int32(handle)
  }

  /// Moves the timer `handle` to a new deadline (used to re-arm periodic timers in place).
  @inlinable
  mutating func reschedule(_ handle: UInt32, deadline: UInt64) {
    nextSequence &+= 1
    entries[Int(handle)].deadline = deadline
    entries[Int(handle)].sequence = nextSequence
    let position = Int(entries[Int(handle)].position)
    siftDown(position)
    siftUp(position)
  }

  @inlinable
  func precedes(_ a: UInt32, _ b: UInt32) -> Bool {
    let left = entries[Int(a)]
    let right = entries[Int(b)]
    if left.deadline != right.deadline { return left.deadline < right.deadline }
    return left.sequence < right.sequence
  }

  @inlinable
  mutating func move(_ handle: UInt32, to position: Int) {
    heap[position] = handle
    entries[Int(handle)].position = Int32(position)
  }

  @inlinable
  mutating func siftUp(_ start: Int) {
    var position = start
    let handle = heap[position]
    while position > 0 {
      let parent = (position - 1) / 2
      guard precedes(handle, heap[parent]) else { break }
      move(heap[parent], to: position)
      position = parent
    }
    move(handle, to: position)
  }

  @inlinable
  mutating func siftDown(_ start: Int) {
    var position = start
    let handle = heap[position]
    while true {
      var child = 2 * position + 1
      guard child < count else { break }
      if child + 1 < count && precedes(heap[child + 1], heap[child]) { child += 1 }
      guard precedes(heap[child], handle) else { break }
      move(heap[child], to: position)
      position = child
    }
    move(handle, to: position)
  }
}
