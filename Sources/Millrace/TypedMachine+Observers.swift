/// Observers: delivering a machine's events to its observers and its type's, and removing one.
extension _TypedMachine {
  /// Calls every observer with `event`, in the order they were added, then the observer of
  /// every machine of the variant, while the machine stays alive (an observer may remove it).
  /// Reads the list afresh for each observer, so one may add another meanwhile, or cancel
  /// one: no observer changes place during a dispatch (a cancelled one leaves a placeholder,
  /// `removeObserver`), and a cancelled observer's box stays alive until no observer is
  /// running (`Runtime._retire`).
  @inlinable
  @inline(__always)
  func notify(_ event: Event) {
    if let side, let first = side.pointee.observers.first, isAlive {
      // The first observer straight from the side record: one load fewer on every reply.
      first._withUnsafeGuaranteedRef { $0.call(event) }
      var index = 1
      while index < side.pointee.observers.count && isAlive {
        side.pointee.observers.storage.unsafelyUnwrapped[index]._withUnsafeGuaranteedRef {
          $0.call(event)
        }
        index &+= 1
      }
    }
    if let observer = entry.pointee.observer, isAlive {
      Unmanaged<_ObserverBox<TypeEvent>>.fromOpaque(observer)._withUnsafeGuaranteedRef {
        $0.call((id, event))
      }
    }
  }

  /// Removes the observer of registration `token`, retiring its box (`Runtime.retire`);
  /// false when the machine has no such observer. During a dispatch a placeholder keeps its
  /// place until the dispatch releases the box (`compactObservers`).
  @usableFromInline
  func removeObserver(token: UInt64) -> Bool {
    let inDispatch = withRuntime { $0._isDispatching }
    guard let removed = side?.pointee.observers.remove(token: token, inPlace: inDispatch)
    else { return false }
    withRuntime { $0._retire(removed, compacting: inDispatch ? id : nil) }
    return true
  }

  /// Takes out of the observer list the placeholders that cancels during a dispatch left.
  @usableFromInline
  func compactObservers() {
    side?.pointee.observers.compact()
  }
}
