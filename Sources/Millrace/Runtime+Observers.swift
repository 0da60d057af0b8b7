// Observers of whole machine types, and the release of removed observers once no call can
// reach them.

extension Runtime {
  /// Calls `observer` with every later reply and output of every machine of type `M`, with the
  /// machine's id: after the machine's own observers, until the returned observation is
  /// cancelled or the runtime goes. A later call replaces the earlier observer of the type
  /// (whose observation then cancels nothing). One observer for a whole type costs no memory
  /// per machine (`MachineHandle.observe` makes a side record per machine).
  ///
  /// The runtime keeps the observer: one that captures the runtime (or anything that owns
  /// it) strongly keeps the runtime alive until `Observation.cancel()`.
  ///
  /// Inlinable, so that the box's closure is specialized for `M` where the caller knows it:
  /// unspecialized, it would look up the metadata of the event's tuple type on every event.
  @inlinable
  @discardableResult
  public func observeAll<M: Machine>(
    _ type: M.Type,
    _ observer: @escaping (MachineID, MachineEvent<M.Input, M.State, M.Output>) -> Void
  ) -> Observation {
    _registry.assertOnItsThread()
    let box = _ObserverBox<_TypedMachine<M>.TypeEvent>(token: _registry.newObserverToken()) {
      observer($0.0, $0.1)
    }
    let observation = Observation(
      registry: _registry, type: _TypedMachineVariant<M>.type, token: box.token)
    _setObserver(of: observation._type, to: Unmanaged.passRetained(box))
    if !_isDispatching { _releaseRetiredObservers() }
    return observation
  }

  /// Makes `box` (retained) the observer of every machine of `type`, now and later (nil:
  /// none). The one it replaces is retired (`retire`).
  @usableFromInline
  func _setObserver(of type: UInt, to box: Unmanaged<_AnyObserverBox>?) {
    for variant in _variants where variant.type == type { variant.observer = box?.toOpaque() }
    _rebuildVariantEntries()
    for observed in _observedTypes where observed.type == type { _retire(observed.box) }
    _observedTypes.removeAll { $0.type == type }
    if let box { _observedTypes.append((type, box)) }
  }

  /// Removes the observer of every machine of `type` if it is registration `token`'s; false
  /// when it is not (cancelled, or replaced by a later `observeAll`).
  @usableFromInline
  func _removeObserver(of type: UInt, token: UInt64) -> Bool {
    guard
      let current = _observedTypes.first(where: { $0.type == type }),
      current.box._withUnsafeGuaranteedRef({ $0.token == token })
    else { return false }
    _setObserver(of: type, to: nil)
    return true
  }

  /// Keeps a removed observer's box until it is safe to release: during a dispatch, until
  /// no observer is being called (the box may be the one), which the dispatch reaches through
  /// the registry's `release` slot before it returns; outside a dispatch, until the call that
  /// removed it is done with the runtime (`releaseRetiredObservers`), since the box may hold
  /// the last reference to the runtime.
  /// `compacting` names the machine whose observer list has a placeholder in the box's place
  /// (`_ObserverList.remove(token:inPlace:)`), taken out before the box is released.
  @usableFromInline
  func _retire(_ observer: Unmanaged<_AnyObserverBox>, compacting machine: MachineID? = nil) {
    _retiredObservers.append((observer, machine))
    // During a dispatch, the ready list brings it to them before it returns.
    if _isDispatching { _registry.scheduleRelease() }
  }

  /// Takes the placeholders out of the observer lists of the machines that had observers
  /// removed during the last dispatch, then releases the removed observers' boxes. The last
  /// reference to the runtime may go with one (an observer that captured it): the list is
  /// emptied first, and nothing of the runtime is touched after the releases.
  @usableFromInline
  func _releaseRetiredObservers() {
    let retired = _retiredObservers
    _retiredObservers = []
    for (_, machine) in retired {
      guard let machine, _registry.liveRecord(machine) != nil else { continue }
      perform(.compactObservers, on: machine.index)
    }
    for (box, _) in retired { box.release() }
  }
}
