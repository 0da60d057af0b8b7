/// An observer box of any event type, as the runtime's list of boxes to release after a
/// dispatch (`Runtime.retiredObservers`) holds it.
@usableFromInline
class _AnyObserverBox {
  /// The registration's number, unique in its runtime (`_MachineRegistry.newObserverToken`): what
  /// an `Observation` finds the box by, without keeping it alive.
  @usableFromInline
  let token: UInt64

  @usableFromInline
  init(token: UInt64) {
    self.token = token
  }
}

/// One observer closure, boxed so that it can be borrowed (its `let` closure is called
/// without retaining its context).
@usableFromInline
final class _ObserverBox<Event>: _AnyObserverBox {
  @usableFromInline
  let call: (Event) -> Void

  @usableFromInline
  init(token: UInt64, _ call: @escaping (Event) -> Void) {
    self.call = call
    super.init(token: token)
  }
}

/// A machine's observers in storage it owns, so that notifying them borrows each observer
/// instead of retaining an array buffer and every closure context per event.
///
/// Grows (allocates) only when an observer is added, never when notifying
/// (`_TypedMachine.notify`).
@usableFromInline
struct _ObserverList<Event> {
  @usableFromInline
  var storage: UnsafeMutablePointer<Unmanaged<_ObserverBox<Event>>>?
  @usableFromInline
  var count = 0
  @usableFromInline
  var capacity = 0
  /// The first observer again (also at `storage[0]`), so that a reply reaches it with one
  /// load fewer: every load on that chain of pointers shows in the dispatch latency.
  @usableFromInline
  var first: Unmanaged<_ObserverBox<Event>>?

  @usableFromInline
  init() {}

  /// Adds `box` at the end, retaining it; false when the list must grow and the memory
  /// cannot be allocated (`_Memory`). The box is made by the caller, before this allocation.
  @usableFromInline
  mutating func append(_ box: _ObserverBox<Event>) -> Bool {
    if count == capacity {
      guard
        let grown = _Memory.allocate(
          Unmanaged<_ObserverBox<Event>>.self, count: max(2, capacity * 2))
      else { return false }
      if let storage {
        grown.moveInitialize(from: storage, count: count)
        storage.deallocate()
      }
      storage = grown
      capacity = max(2, capacity * 2)
    }
    (storage! + count).initialize(to: Unmanaged.passRetained(box))
    if count == 0 { first = storage![0] }
    count += 1
    return true
  }

  /// The token of a placeholder (`remove(token:inPlace:)`): no registration has it.
  @usableFromInline
  static var placeholderToken: UInt64 { 0 }

  /// Takes the box of registration `token` out of the list and answers the reference the list
  /// held (the caller releases it); nil when no box of the list has that token.
  ///
  /// `inPlace` (during a dispatch, while the list may be being notified) leaves a placeholder
  /// that does nothing in the box's place, so that no observer changes place under a
  /// notification going through the list; `compact()` takes placeholders out afterwards.
  /// Otherwise the observers after it move down, keeping their order.
  @usableFromInline
  mutating func remove(token: UInt64, inPlace: Bool) -> Unmanaged<_AnyObserverBox>? {
    guard let storage, token != Self.placeholderToken else { return nil }
    for index in 0..<count where storage[index]._withUnsafeGuaranteedRef({ $0.token == token }) {
      let removed = storage[index]
      if inPlace {
        storage[index] = Unmanaged.passRetained(_ObserverBox(token: Self.placeholderToken) { _ in })
      } else {
        (storage + index).moveInitialize(from: storage + index + 1, count: count - index - 1)
        count -= 1
      }
      first = count > 0 ? storage[0] : nil
      return Unmanaged.fromOpaque(removed.toOpaque())
    }
    return nil
  }

  /// Takes out the placeholders `remove(token:inPlace:)` left, keeping the observers' order.
  @usableFromInline
  mutating func compact() {
    guard let storage else { return }
    var kept = 0
    for index in 0..<count {
      let box = storage[index]
      if box._withUnsafeGuaranteedRef({ $0.token == Self.placeholderToken }) {
        box.release()
      } else {
        (storage + kept).initialize(to: box)
        kept += 1
      }
    }
    count = kept
    first = count > 0 ? storage[0] : nil
  }

  /// Forgets every observer and frees the storage.
  @usableFromInline
  mutating func removeAll() {
    guard let storage else { return }
    for index in 0..<count { storage[index].release() }
    storage.deallocate()
    self.storage = nil
    first = nil
    count = 0
    capacity = 0
  }
}
