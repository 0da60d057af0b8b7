/// A first-in first-out ring of fixed capacity over storage allocated once.
///
/// The owner must call `deallocate()` exactly once; nothing here allocates after `init`.
@usableFromInline
struct FixedRing<Element> {
  @usableFromInline
  let storage: UnsafeMutablePointer<Element>
  @usableFromInline
  let capacity: Int
  @usableFromInline
  var head = 0
  @usableFromInline
  var count = 0

  @usableFromInline
  init(capacity: Int) {
    self.capacity = capacity < 1 ? 1 : capacity
    self.storage = .allocate(capacity: self.capacity)
  }

  @inlinable
  var isEmpty: Bool { count == 0 }

  @inlinable
  var isFull: Bool { count == capacity }

  /// Appends `element`; returns false (and changes nothing) when full.
  @inlinable
  mutating func append(_ element: Element) -> Bool {
    guard count < capacity else { return false }
    var tail = head &+ count
    if tail >= capacity { tail &-= capacity }
    (storage + tail).initialize(to: element)
    count &+= 1
    return true
  }

  /// Removes and returns the oldest element, or nil when empty.
  @inlinable
  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = (storage + head).move()
    head &+= 1
    if head == capacity { head = 0 }
    count &-= 1
    return element
  }

  /// Removes every element.
  @usableFromInline
  mutating func removeAll() {
    while count > 0 {
      (storage + head).deinitialize(count: 1)
      head += 1
      if head == capacity { head = 0 }
      count -= 1
    }
    head = 0
  }

  /// Removes every element and frees the storage; the ring must not be used afterwards.
  @usableFromInline
  mutating func deallocate() {
    removeAll()
    storage.deallocate()
  }
}
