/// The runtime's timers: an indexed 4-ary min-heap over a fixed table of entries, ordered by
/// deadline and then by arming order, so timers due at the same instant fire in the order
/// they were armed. Arm, cancel and reschedule are O(log n) and never allocate.
///
/// The heap holds each timer's ordering key (deadline and arming sequence) beside its handle,
/// so sifting compares nodes without visiting their entries: with a million timers armed, a
/// visit is a cache miss, and a binary heap over bare handles took two per level. Four
/// children per node halve the levels; the four are adjacent in memory.
///
/// An entry is first written when it is first armed (entries are handed out in order until
/// then, freed ones reused first), so on a system with virtual memory the table costs what
/// its high-water mark of timers touched; `releaseMemory` gives it back while none is armed.
@usableFromInline
struct _TimerHeap {
  /// One armed timer: whom to tell, and where its node is.
  @usableFromInline
  struct Entry {
    @usableFromInline var period: UInt64 = 0
    @usableFromInline var owner = MachineID(index: 0, generation: 0)
    @usableFromInline var slot: UInt32 = 0
    @usableFromInline var slotGeneration: UInt32 = 0
    /// Position in `heap` while armed; the next free entry while free.
    @usableFromInline var position: Int32 = -1

    @inlinable
    init() {}

    @inlinable
    init(period: UInt64, owner: MachineID, slot: UInt32, slotGeneration: UInt32, position: Int32) {
      self.period = period
      self.owner = owner
      self.slot = slot
      self.slotGeneration = slotGeneration
      self.position = position
    }
  }

  /// A heap node: the ordering key of the timer `handle`.
  @usableFromInline
  struct Node {
    @usableFromInline var deadline: UInt64
    @usableFromInline var sequence: UInt64
    @usableFromInline var handle: UInt32

    @inlinable
    init(deadline: UInt64, sequence: UInt64, handle: UInt32) {
      self.deadline = deadline
      self.sequence = sequence
      self.handle = handle
    }

    /// Whether `self` fires before `other`: an earlier deadline, or the same one armed first.
    @inlinable
    func precedes(_ other: Node) -> Bool {
      deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
    }
  }

  /// Children per node.
  @usableFromInline
  static let arity = 4

  @usableFromInline
  private(set) var entries: UnsafeMutablePointer<Entry>
  @usableFromInline
  private(set) var heap: UnsafeMutablePointer<Node>
  @usableFromInline
  let capacity: Int
  @usableFromInline
  var count = 0
  @usableFromInline
  var freeHead: Int32 = -1
  /// Entries written so far; the others were never armed.
  @usableFromInline
  var touched: Int32 = 0
  @usableFromInline
  var nextSequence: UInt64 = 0

  /// The marker for "no timer".
  @usableFromInline
  static let none = UInt32.max

  /// Reserves `capacity` timers (at least 1), or nil when the memory cannot be allocated.
  @usableFromInline
  init?(capacity: Int) {
    let capacity = capacity < 1 ? 1 : min(capacity, Int(Int32.max))
    guard let tables = _TimerHeap.allocateTables(capacity) else { return nil }
    self.capacity = capacity
    (entries, heap) = tables
  }

  /// Both tables for `capacity` timers, or nil (and neither) when they cannot be allocated.
  private static func allocateTables(
    _ capacity: Int
  ) -> (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<Node>)? {
    guard let entries = _Memory.allocate(Entry.self, count: capacity) else { return nil }
    guard let heap = _Memory.allocate(Node.self, count: capacity) else {
      entries.deallocate()
      return nil
    }
    return (entries, heap)
  }

  @usableFromInline
  func deallocate() {
    entries.deallocate()
    heap.deallocate()
  }

  /// Bytes written so far.
  @usableFromInline
  var touchedBytes: Int {
    Int(touched) * (MemoryLayout<Entry>.stride + MemoryLayout<Node>.stride)
  }

  /// When no timer is armed and more than `threshold` bytes were written, hands the tables
  /// to `release` (to be deallocated) and reserves them afresh, untouched; returns whether it
  /// did.
  @usableFromInline
  mutating func releaseMemory(
    above threshold: Int, handingOff release: (UnsafeMutableRawPointer) -> Void
  ) -> Bool {
    guard count == 0, touchedBytes > threshold,
      let tables = _TimerHeap.allocateTables(capacity)
    else { return false }
    release(UnsafeMutableRawPointer(entries))
    release(UnsafeMutableRawPointer(heap))
    (entries, heap) = tables
    touched = 0
    freeHead = -1
    return true
  }

  /// The earliest deadline, if any timer is armed.
  @inlinable
  var earliestDeadline: UInt64? {
    count > 0 ? heap[0].deadline : nil
  }

  /// The handle of the earliest timer; only valid when `count > 0`.
  @inlinable
  var earliest: UInt32 { heap[0].handle }

  /// The deadline of the armed timer `handle`.
  @inlinable
  func deadline(of handle: UInt32) -> UInt64 {
    heap[Int(entries[Int(handle)].position)].deadline
  }

  /// Arms a timer; returns its handle, or nil when every entry is in use.
  @inlinable
  mutating func arm(
    deadline: UInt64, period: UInt64, owner: MachineID, slot: UInt32, slotGeneration: UInt32
  ) -> UInt32? {
    let handle: UInt32
    if freeHead >= 0 {
      handle = UInt32(freeHead)
      freeHead = entries[Int(handle)].position
    } else if Int(touched) < capacity {
      handle = UInt32(touched)
      touched &+= 1
    } else {
      return nil
    }
    nextSequence &+= 1
    (entries + Int(handle)).initialize(
      to: Entry(
        period: period, owner: owner, slot: slot, slotGeneration: slotGeneration,
        position: Int32(count)))
    (heap + count).initialize(
      to: Node(deadline: deadline, sequence: nextSequence, handle: handle))
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
      place(heap[count], at: position)
      restore(position)
    }
    entries[Int(handle)].position = freeHead
    freeHead = Int32(handle)
  }

  /// Moves the timer `handle` to a new deadline (used to re-arm periodic timers in place).
  @usableFromInline
  mutating func reschedule(_ handle: UInt32, deadline: UInt64) {
    nextSequence &+= 1
    let position = Int(entries[Int(handle)].position)
    heap[position].deadline = deadline
    heap[position].sequence = nextSequence
    restore(position)
  }

  /// Puts `node` at `position` of `heap` and tells its entry. Static, over the tables' base
  /// addresses held in locals by the sifts: as stored properties they would be reloaded after
  /// every store through them (the compiler cannot rule out that a store moved them).
  @inlinable
  @inline(__always)
  static func place(
    _ node: Node, at position: Int, heap: UnsafeMutablePointer<Node>,
    entries: UnsafeMutablePointer<Entry>
  ) {
    heap[position] = node
    entries[Int(node.handle)].position = Int32(truncatingIfNeeded: position)
  }

  /// Puts `node` at `position` and tells its entry.
  @inlinable
  mutating func place(_ node: Node, at position: Int) {
    _TimerHeap.place(node, at: position, heap: heap, entries: entries)
  }

  /// Moves the node at `position`, whose key changed, up or down to where it belongs.
  @usableFromInline
  mutating func restore(_ position: Int) {
    if position > 0 && heap[position].precedes(heap[_TimerHeap.parent(of: position)]) {
      siftUp(position)
    } else {
      siftDown(position)
    }
  }

  /// The parent of the node at `position` (> 0).
  @inlinable
  static func parent(of position: Int) -> Int { (position &- 1) / _TimerHeap.arity }

  @usableFromInline
  mutating func siftUp(_ start: Int) {
    let (heap, entries) = (self.heap, self.entries)
    var position = start
    let node = heap[position]
    while position > 0 {
      let parent = _TimerHeap.parent(of: position)
      guard node.precedes(heap[parent]) else { break }
      _TimerHeap.place(heap[parent], at: position, heap: heap, entries: entries)
      position = parent
    }
    _TimerHeap.place(node, at: position, heap: heap, entries: entries)
  }

  @usableFromInline
  mutating func siftDown(_ start: Int) {
    let (heap, entries, count) = (self.heap, self.entries, self.count)
    var position = start
    let node = heap[position]
    while true {
      let first = _TimerHeap.arity &* position &+ 1
      guard first < count else { break }
      var best = first
      if first &+ 3 < count {
        // Four children: the earlier of each pair, then of the two (keys are unique: the
        // arming sequence breaks deadline ties, so this is the scan's choice).
        let left = heap[first &+ 1].precedes(heap[first]) ? first &+ 1 : first
        let right = heap[first &+ 3].precedes(heap[first &+ 2]) ? first &+ 3 : first &+ 2
        best = heap[right].precedes(heap[left]) ? right : left
      } else {
        var child = first &+ 1
        while child < count {
          if heap[child].precedes(heap[best]) { best = child }
          child &+= 1
        }
      }
      guard heap[best].precedes(node) else { break }
      _TimerHeap.place(heap[best], at: position, heap: heap, entries: entries)
      position = best
    }
    _TimerHeap.place(node, at: position, heap: heap, entries: entries)
  }
}
