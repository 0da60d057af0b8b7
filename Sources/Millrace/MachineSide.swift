/// The parts of a machine only some machines use: observers, outward routes and a redirect.
/// Made on the first `observe`, `outward` or `redirect`, released when the machine is removed.
@usableFromInline
class MachineSide {
  @usableFromInline
  init() {}
}

/// The side record of a machine of type `M`.
@usableFromInline
final class TypedMachineSide<M: Machine>: MachineSide {
  @usableFromInline
  typealias Event = MachineEvent<M.Input, M.State, M.Output>

  @usableFromInline
  @exclusivity(unchecked)
  var observers = ObserverList<Event>()
  @usableFromInline
  @exclusivity(unchecked)
  var routes: [(M.Output) -> Void] = []
  @usableFromInline
  @exclusivity(unchecked)
  var redirect: ((M.Output) -> Redirection<M.Input>)?

  @usableFromInline
  override init() {}

  deinit {
    observers.removeAll()
  }

  /// Calls every observer with `event`, in the order they were added, while `record`'s
  /// machine stays alive (an observer may remove it). Reads the list afresh for each
  /// observer, so one may add another meanwhile.
  ///
  /// Callers build `event` right in the call: an event built earlier and captured would be
  /// copied here with wide loads over its narrower stores, which stalls store forwarding.
  @inlinable
  @inline(__always)
  func notify(_ event: Event, while record: UnsafeMutablePointer<MachineRecord>) {
    var index = 0
    while index < observers.count && record.pointee.isAlive {
      observers.storage.unsafelyUnwrapped[index]._withUnsafeGuaranteedRef { $0.call(event) }
      index &+= 1
    }
  }
}
