/// Values filed under tags the slab hands out, found again by tag with an index instead of a
/// hash: a slab of slots reused through a free list. A tag is never 0 (`PostTag.none`), and a
/// tag whose value was removed finds nothing while the slots live, even after its slot was
/// reused (each reuse changes the slot's generation, which the tag carries).
///
/// The host files a `SEND`'s waiter here until its input is processed: two lookups per
/// request, which a `[UInt64: Waiter]` paid with two SipHash computations.
struct TagSlab<Value> {
  private var slots: [(generation: UInt32, value: Value?)] = []
  private var freeSlots: [Int] = []
  /// Values filed.
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// Slots allocated (filed or free).
  var capacity: Int { slots.count }

  /// The tag the next `insert` returns.
  var nextTag: UInt64 {
    if let index = freeSlots.last {
      return Self.tag(index: index, generation: slots[index].generation)
    }
    return Self.tag(index: slots.count, generation: 0)
  }

  /// Files `value`; returns its tag. (Consumed: the value moves into its slot without a copy
  /// of its references.)
  mutating func insert(_ value: consuming Value) -> UInt64 {
    count += 1
    if let index = freeSlots.popLast() {
      slots[index].value = value
      return Self.tag(index: index, generation: slots[index].generation)
    }
    slots.append((0, value))
    return Self.tag(index: slots.count - 1, generation: 0)
  }

  /// Takes out the value filed under `tag`; nil when there is none.
  mutating func remove(tag: UInt64) -> Value? {
    let index = Int(truncatingIfNeeded: tag & 0xFFFF_FFFF) - 1
    guard index >= 0, index < slots.count,
      slots[index].generation == UInt32(truncatingIfNeeded: tag >> 32),
      let value = slots[index].value.take()
    else { return nil }
    recycle(index)
    return value
  }

  /// Takes out every value that `shouldRemove` picks, in slot order.
  mutating func removeAll(where shouldRemove: (Value) -> Bool) -> [Value] {
    var removed: [Value] = []
    for index in slots.indices {
      guard let value = slots[index].value, shouldRemove(value) else { continue }
      slots[index].value = nil
      recycle(index)
      removed.append(value)
    }
    return removed
  }

  /// Gives the slots' memory back when nothing is filed and more than `keep` slots exist
  /// (after a burst). Fresh slots start at generation 0 again, so a tag removed before could
  /// match a new value: callers must not look up tags they removed (the host looks each up
  /// once, when its input was processed or its machine killed).
  mutating func shrinkIfEmpty(keeping keep: Int) {
    guard count == 0, slots.count > keep else { return }
    slots = []
    freeSlots = []
  }

  /// Puts the emptied slot `index` on the free list, under its next generation.
  private mutating func recycle(_ index: Int) {
    slots[index].generation &+= 1
    freeSlots.append(index)
    count -= 1
  }

  private static func tag(index: Int, generation: UInt32) -> UInt64 {
    UInt64(generation) << 32 | UInt64(index + 1)
  }
}
