// Dispatch: queued inputs resolved, one machine step at a time.

extension Runtime {
  /// Whether any machine has queued inputs.
  public var hasPendingInputs: Bool { _registry.hasReady }

  /// Whether no machine has a queued input and no `dispatch` is running: then the next input
  /// posted is the first that `dispatch(limit: 1)` resolves, and a caller may resolve it at
  /// once instead of leaving it for the loop's dispatch (`MachineHost.send` does).
  @inlinable
  public var isAtRest: Bool {
    let registry = _registry
    return !registry.hasReady && !registry.isDispatching
  }

  /// Resolves queued inputs, one per machine step, until none are left or `limit` steps were
  /// taken; returns the number of steps. Re-entrant calls (from an observer) return 0.
  ///
  /// A machine taken off the ready list is marked running and handed to its variant, which
  /// takes its steps, counting them down in `registry.stepsLeft`, and puts it back on the list
  /// if it yields with inputs left; a machine removed meanwhile is freed here, once its variant
  /// has returned. `registry.dispatched` counts `limit` steps when it starts and takes back
  /// those left when it returns (`statistics` takes them back from a dispatch in progress).
  @discardableResult
  @inlinable
  public func dispatch(limit: Int = .max) -> Int {
    let registry = self._registry
    registry.assertOnItsThread()
    guard !registry.isDispatching, limit > 0 else { return 0 }
    registry.isDispatching = true
    registry.stepsLeft = limit
    registry.dispatched &+= UInt64(truncatingIfNeeded: limit)
    // At least one step is left on entry: the limit is checked after each machine's steps.
    while let (index, record) = registry.takeReady() {
      if record.pointee.isAlive {
        let entry = registry.variants + Int(record.pointee.variant)
        entry.pointee.variant._withUnsafeGuaranteedRef {
          $0.dispatch(registry, index, record, entry)
        }
      }
      if !record.pointee.isAlive { _releaseIndex(index) }
      guard registry.stepsLeft > 0 else {
        // The limit ran out with the `release` slot perhaps still queued: its observers are
        // released now all the same.
        if _slowPath(!_retiredObservers.isEmpty) { _releaseRetiredObservers() }
        break
      }
    }
    let left = registry.stepsLeft
    registry.dispatched &-= UInt64(truncatingIfNeeded: left)
    registry.isDispatching = false
    return limit &- left
  }
}
