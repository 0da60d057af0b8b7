/// An observer's registration (`MachineHandle.observe`, `Runtime.observeAll`), which can be
/// cancelled.
///
/// After `cancel()` the observer is never called again, including for the rest of an event
/// being delivered when an observer cancels it, and the runtime drops its reference to the
/// observer's closure: at once, or, when cancelled from inside `dispatch`, before that
/// dispatch returns (once the step that cancelled it is over). An observer that captures the runtime strongly keeps it alive until then (a
/// reference cycle through the machine); cancelling is how such a cycle ends. Dropping an
/// `Observation` does not cancel it: an observer lasts as long as its machine (or, for
/// `observeAll`, the runtime) unless cancelled. An observation holds no reference to the
/// observer or the runtime, only to the runtime's machine registry, as a handle does.
///
/// Use it on the runtime's thread, like the handle that made it.
public struct Observation {
  @usableFromInline
  let _registry: _MachineRegistry
  /// The machine observed, or nil for an observer of every machine of `_type`.
  @usableFromInline
  let _machine: MachineID?
  /// The machine type observed (`_TypedMachineVariant.type`), for `observeAll`.
  @usableFromInline
  let _type: UInt
  /// The registration's number (`_AnyObserverBox.token`).
  @usableFromInline
  let _token: UInt64

  /// The observation of `machine`'s observer `token`.
  @usableFromInline
  init(registry: _MachineRegistry, machine: MachineID, token: UInt64) {
    (_registry, _machine, _type, _token) = (registry, machine, 0, token)
  }

  /// The observation of the observer `token` of every machine of `type`.
  @usableFromInline
  init(registry: _MachineRegistry, type: UInt, token: UInt64) {
    (_registry, _machine, _type, _token) = (registry, nil, type, token)
  }

  /// Stops the observer; true when it was registered until now, false when it was already
  /// cancelled (or, for `observeAll`, replaced), its machine removed or its runtime gone.
  @discardableResult
  public func cancel() -> Bool {
    _registry.assertOnItsThread()
    guard let runtime = _registry.owner else { return false }
    return runtime._withUnsafeGuaranteedRef { runtime in
      let removed: Bool
      if let machine = _machine {
        removed =
          runtime._registry.liveRecord(machine) != nil
          && runtime.perform(.removeObserver(token: _token), on: machine.index)
      } else {
        removed = runtime._removeObserver(of: _type, token: _token)
      }
      // Last: the observer released may hold the last reference to the runtime.
      if !runtime._isDispatching { runtime._releaseRetiredObservers() }
      return removed
    }
  }
}
