// Time: the driver moves it forward and due timers fire; machines arm and disarm them.

extension Runtime {
  /// The earliest armed timer's deadline, or nil when no timer is armed.
  public var nextDeadline: Instant? {
    _timers.earliestDeadline.map { Instant(nanoseconds: $0) }
  }

  /// Moves time forward to `instant` (never backward) and fires every timer due by then, in
  /// deadline order; fired timers queue their inputs. Dispatches nothing.
  ///
  /// A periodic timer that fell more than a period behind fires once and skips the missed
  /// ticks, keeping its phase.
  public func advance(to instant: Instant) {
    if instant > _currentTime { _currentTime = instant }
    let now = _currentTime.nanoseconds
    while let deadline = _timers.earliestDeadline, deadline <= now {
      let handle = _timers.earliest
      let entry = _timers.entries[Int(handle)]
      if entry.period > 0 {
        var next = deadline &+ entry.period
        if next <= now { next = now &+ entry.period &- (now &- deadline) % entry.period }
        _timers.reschedule(handle, deadline: next)
      } else {
        _timers.disarm(handle)
        _counters.timers -= 1
      }
      guard _registry.liveRecord(entry.owner) != nil else { continue }
      perform(
        .fire(slot: entry.slot, generation: entry.slotGeneration, disarmed: entry.period == 0),
        on: entry.owner.index)
    }
  }

  /// The instant a timer starting now counts from: `presentTime`'s, taken into the runtime's
  /// time (which never moves back), or else the last `advance(to:)`'s.
  @inlinable
  func _timerStart() -> Instant {
    _hasPresentTime ? _takePresentTime() : _currentTime
  }

  /// `_timerStart` with a `presentTime`: out of line, so that a runtime without one pays a
  /// test where a timer starts, not the call.
  @usableFromInline
  func _takePresentTime() -> Instant {
    if let present = presentTime?(), present > _currentTime { _currentTime = present }
    return _currentTime
  }

  /// Arms a timer for effect slot `slot` of machine `owner`, counted in the statistics; nil
  /// when the timer table is full.
  @inlinable
  func _armTimer(
    deadline: UInt64, period: UInt64, owner: MachineID, slot: UInt32, slotGeneration: UInt32
  ) -> UInt32? {
    guard
      let handle = _timers.arm(
        deadline: deadline, period: period, owner: owner, slot: slot,
        slotGeneration: slotGeneration)
    else { return nil }
    _counters.timers += 1
    if _counters.timers > _counters.timersHighWater { _counters.timersHighWater = _counters.timers }
    return handle
  }

  /// Disarms an armed timer, counted in the statistics.
  @inlinable
  func _disarmTimer(_ handle: UInt32) {
    _timers.disarm(handle)
    _counters.timers -= 1
  }
}
