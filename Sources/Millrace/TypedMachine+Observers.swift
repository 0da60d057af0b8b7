/// Observers: delivering a machine's events to its observers and its type's, and removing one.
extension TypedMachine {
  /// Calls every observer with `event`, in the order they were added, then the observer of
  /// every machine of the kind, while the machine stays alive (an observer may remove it).
  /// Reads the list afresh for each observer, so one may add another meanwhile, or cancel
  /// one: a cancelled observer's box stays alive until the dispatch returns
  /// (`Runtime.retire`), and the observers after it move down a place, so an index whose
  /// observer changed during the call is called again, not passed.
  @inlinable
  @inline(__always)
  func notify(_ event: Event) {
    if let side, let first = side.pointee.observers.first, isAlive {
      // The first observer straight from the side record: one load fewer on every reply.
      first._withUnsafeGuaranteedRef { $0.call(event) }
      var index = side.pointee.observers.first?.toOpaque() == first.toOpaque() ? 1 : 0
      while index < side.pointee.observers.count && isAlive {
        let observer = side.pointee.observers.storage.unsafelyUnwrapped[index]
        observer._withUnsafeGuaranteedRef { $0.call(event) }
        if index < side.pointee.observers.count
          && side.pointee.observers.storage.unsafelyUnwrapped[index].toOpaque()
            == observer.toOpaque()
        {
          index &+= 1
        }
      }
    }
    if let observer = entry.pointee.observer, isAlive {
      Unmanaged<ObserverBox<KindEvent>>.fromOpaque(observer)._withUnsafeGuaranteedRef {
        $0.call((id, event))
      }
    }
  }

  /// Removes the observer of registration `token`, retiring its box (`Runtime.retire`);
  /// false when the machine has no such observer.
  @usableFromInline
  func removeObserver(token: UInt64) -> Bool {
    guard let removed = side?.pointee.observers.remove(token: token) else { return false }
    withRuntime { $0.retire(removed) }
    return true
  }
}
