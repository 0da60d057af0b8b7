/// A pending `after` or `every` effect as a host saves it, to restore it after a restart.
///
/// Deadlines are on the runtime's clock; a host that restores into a new process converts
/// them through a wall clock. A snapshot carries no job: `run` effects are not restorable.
public struct TimerSnapshot<Input> {
  /// Whether the effect fires once (`after`) or until cancelled (`every`).
  public var repeats: Bool
  /// The delay of an `after`, the period of an `every`.
  public var span: TimeSpan
  /// The input the timer sends.
  public var input: Input
  /// When it fires next; nil while it waits for room on an `oldest(.suspendNew)` queue.
  public var deadline: Instant?
  /// The queue it runs on.
  public var queue: EffectQueue
  /// Its id, for `cancel`.
  public var id: EffectID

  /// Creates a snapshot.
  @inlinable
  public init(
    repeats: Bool, span: TimeSpan, input: Input, deadline: Instant?, queue: EffectQueue,
    id: EffectID
  ) {
    self.repeats = repeats
    self.span = span
    self.input = input
    self.deadline = deadline
    self.queue = queue
    self.id = id
  }
}

extension MachineHandle {
  /// The machine's pending timer effects, per queue: running ones in start order, then
  /// waiting ones in queue order. A one-shot timer that
  /// fired but whose input is still queued is reported as due now. Allocates; not for the hot
  /// path.
  @inlinable
  public var timers: [TimerSnapshot<M.Input>] {
    // Without effects in flight there is nothing to list (and no generic code to run).
    guard let _machine, _machine.record.pointee.effectsInFlight > 0 else { return [] }
    var snapshots: [TimerSnapshot<M.Input>] = []
    let effects = _machine.effects
    for queue in 0..<_machine.layout.pointee.queueCount {
      for (index, waiting) in effects.members(of: queue) {
        let slot = effects.slot(index).pointee
        guard slot.kind != .job, let input = slot.input else { continue }
        var deadline: Instant? = nil
        if !waiting {
          deadline = _machine.withRuntime { runtime in
            slot.timer == _TimerHeap.none
              ? runtime.now : Instant(nanoseconds: runtime._timers.deadline(of: slot.timer))
          }
        }
        snapshots.append(
          TimerSnapshot(
            repeats: slot.kind == .every, span: slot.span, input: input, deadline: deadline,
            queue: EffectQueue(UInt8(queue)), id: slot.id))
      }
    }
    return snapshots
  }
}

extension Runtime {
  /// Re-creates a saved timer effect in `handle`'s machine without applying queue policies
  /// (the saved set already obeyed them): a snapshot with a deadline runs and fires at it (at
  /// once if already past); one without waits on its queue (or, on a `merge` queue, where
  /// nothing waits, runs and fires now). A snapshot naming a queue the machine lacks (its
  /// queues changed since the snapshot was taken) is restored on the default queue. Returns
  /// false, and reports a diagnostic, when no effect slot or timer is free.
  @inlinable
  @discardableResult
  public func restore<M: Machine>(_ timer: TimerSnapshot<M.Input>, into handle: MachineHandle<M>)
    -> Bool
  {
    guard handle._registry === _registry, let machine = handle._machine else { return false }
    let effects = machine.effects
    guard let index = effects.allocate() else {
      machine.overflow(.effectSlotsFull(machine.id))
      return false
    }
    let queue = effects.queueIndexOrDefault(timer.queue)
    let slot = effects.slot(index)
    slot.pointee.kind = timer.repeats ? .every : .after
    slot.pointee.queue = UInt8(truncatingIfNeeded: queue)
    slot.pointee.id = timer.id
    slot.pointee.span = timer.span
    slot.pointee.input = timer.input
    // Nothing waits on a `merge` queue: a waiting snapshot restored there starts now.
    let deadline = timer.deadline ?? (effects.list(queue, waiting: true) == nil ? now : nil)
    slot.pointee.phase = deadline == nil ? .waiting : .running
    effects.append(index, toWaiting: deadline == nil, of: queue)
    guard let deadline else { return true }
    let period: UInt64 =
      timer.repeats ? UInt64(timer.span.nanoseconds > 0 ? timer.span.nanoseconds : 1) : 0
    guard
      let handle = _armTimer(
        deadline: deadline.nanoseconds, period: period, owner: machine.id, slot: index,
        slotGeneration: slot.pointee.generation)
    else {
      effects.unlink(index, fromWaiting: false, of: queue)
      effects.release(index)
      machine.overflow(.timersFull(machine.id))
      return false
    }
    slot.pointee.timer = handle
    _counters.effectsStarted &+= 1
    return true
  }
}
