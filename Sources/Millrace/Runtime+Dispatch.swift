// Dispatch: queued inputs resolved, one machine step at a time.

extension Runtime {
  /// Whether any machine has queued inputs.
  public var hasPendingInputs: Bool { _registry.hasReady }

  /// Resolves queued inputs, one per machine step, until none are left or `limit` steps were
  /// taken; returns the number of steps. Re-entrant calls (from an observer) return 0.
  ///
  /// A machine taken off the ready list is marked running and handed to its variant, which
  /// takes its steps, counting them down in `registry.stepsLeft`, and puts it back on the list
  /// if it yields with inputs left; a machine removed meanwhile is freed here, once its variant
  /// has returned. `_counters.dispatched` counts the steps when it returns (`statistics` adds
  /// those of a dispatch in progress).
  @discardableResult
  @inlinable
  public func dispatch(limit: Int = .max) -> Int {
    _registry.assertOnItsThread()
    guard !_isDispatching, limit > 0 else { return 0 }
    _isDispatching = true
    _dispatchLimit = limit
    let registry = self._registry
    registry.stepsLeft = limit
    while true {
      guard registry.stepsLeft > 0 else {
        // The limit ran out with the `release` slot perhaps still queued: its observers are
        // released now all the same.
        if _slowPath(!_retiredObservers.isEmpty) { _releaseRetiredObservers() }
        break
      }
      guard let (index, record) = registry.takeReady() else { break }
      if record.pointee.isAlive {
        let entry = registry.variants + Int(record.pointee.variant)
        entry.pointee.variant._withUnsafeGuaranteedRef {
          $0.dispatch(registry, index, record, entry)
        }
        if record.pointee.isAlive { continue }
      }
      _releaseIndex(index)
    }
    let steps = limit &- registry.stepsLeft
    _counters.dispatched &+= UInt64(truncatingIfNeeded: steps)
    _isDispatching = false
    return steps
  }
}
