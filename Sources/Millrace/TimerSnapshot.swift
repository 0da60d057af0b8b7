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
  /// The machine's pending timer effects, per queue: running ones in start order, then waiting
  /// ones in queue order. A one-shot timer that fired but whose input is still queued is
  /// reported as due now. Allocates; not for the hot path.
  public var timers: [TimerSnapshot<M.Input>] {
    guard box.isAlive else { return [] }
    var snapshots: [TimerSnapshot<M.Input>] = []
    let effects = box.effects
    for queue in 0..<effects.queues.count {
      for waiting in [false, true] {
        var index =
          waiting ? effects.queues[queue].waiting.head : effects.queues[queue].running.head
        while index >= 0 {
          let slot = effects.slots[Int(index)]
          if slot.kind != .job, let input = slot.input {
            var deadline: Instant? = nil
            if !waiting {
              deadline =
                slot.timer == TimerHeap.none
                ? box.runtime.now
                : Instant(nanoseconds: box.runtime.timers.entries[Int(slot.timer)].deadline)
            }
            snapshots.append(
              TimerSnapshot(
                repeats: slot.kind == .every, span: slot.span, input: input, deadline: deadline,
                queue: EffectQueue(UInt8(queue)), id: slot.id))
          }
          index = slot.next
        }
      }
    }
    return snapshots
  }
}

extension Runtime {
  /// Re-creates a saved timer effect in `handle`'s machine without applying queue policies
  /// (the saved set already obeyed them): a snapshot with a deadline runs and fires at it (at
  /// once if already past); one without waits on its queue. Returns false, and reports a
  /// diagnostic, when no effect slot or timer is free.
  @discardableResult
  public func restore<M: Machine>(_ timer: TimerSnapshot<M.Input>, into handle: MachineHandle<M>)
    -> Bool
  {
    let box = handle.box
    guard box.isAlive, box.runtime === self else { return false }
    guard let index = box.effects.allocate() else {
      box.overflow(.effectSlotsFull(box.id))
      return false
    }
    let queue = box.effects.queueIndex(timer.queue)
    let slot = box.effects.slots + Int(index)
    slot.pointee.kind = timer.repeats ? .every : .after
    slot.pointee.queue = UInt8(truncatingIfNeeded: queue)
    slot.pointee.id = timer.id
    slot.pointee.span = timer.span
    slot.pointee.input = timer.input
    let waits = timer.deadline == nil
    slot.pointee.phase = waits ? .waiting : .running
    box.effects.append(index, toWaiting: waits, of: queue)
    if box.effects.inFlight > box.statistics.effectsHighWater {
      box.statistics.effectsHighWater = box.effects.inFlight
    }
    guard let deadline = timer.deadline else { return true }
    let period: UInt64 =
      timer.repeats ? UInt64(timer.span.nanoseconds > 0 ? timer.span.nanoseconds : 1) : 0
    guard
      let handle = armTimer(
        deadline: deadline.nanoseconds, period: period, owner: box.id, slot: UInt32(index),
        slotGeneration: slot.pointee.generation)
    else {
      box.effects.unlink(index, fromWaiting: false, of: queue)
      box.effects.release(index)
      box.overflow(.timersFull(box.id))
      return false
    }
    slot.pointee.timer = handle
    box.statistics.effectsStarted &+= 1
    return true
  }
}
