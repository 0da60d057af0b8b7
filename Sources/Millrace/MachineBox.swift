/// A spawned machine of type `M`: its state, input ring, effect slots, observers and routes.
///
/// Every method runs on the runtime's thread. Nothing here allocates after `init` except
/// `run` effects (which create the job the driver receives) and registering observers.
@usableFromInline
final class MachineBox<M: Machine>: MachineCell {
  @usableFromInline
  typealias Event = MachineEvent<M.Input, M.State, M.Output>

  @usableFromInline
  @exclusivity(unchecked)
  var state: M.State
  @usableFromInline
  let extra: M.Extra
  @usableFromInline
  @exclusivity(unchecked)
  var inputs: FixedRing<QueuedInput<M.Input>>
  @usableFromInline
  @exclusivity(unchecked)
  var effects: EffectSlots<M.Input>
  @usableFromInline
  @exclusivity(unchecked)
  var observers = ObserverList<Event>()
  @usableFromInline
  @exclusivity(unchecked)
  var routes: [(M.Output) -> Void] = []
  @usableFromInline
  @exclusivity(unchecked)
  var redirect: ((M.Output) -> Redirection<M.Input>)?

  @inlinable
  init(
    id: MachineID, runtime: Runtime, state: M.State, extra: M.Extra, queues: [QueuePolicy],
    inputCapacity: Int, effectCapacity: Int
  ) {
    self.state = state
    self.extra = extra
    self.inputs = FixedRing(capacity: inputCapacity)
    self.effects = EffectSlots(capacity: effectCapacity, policies: queues)
    super.init(id: id, runtime: runtime) { cell, operation in
      unsafeDowncast(cell, to: MachineBox<M>.self).perform(operation)
    }
  }

  deinit {
    inputs.deallocate()
    effects.deallocate()
    observers.removeAll()
  }

  @inlinable
  func perform(_ operation: CellOperation) {
    switch operation {
    case .dispatch: dispatchNext()
    case .fire(let slot, let generation, let disarmed):
      fire(slot: slot, generation: generation, disarmed: disarmed)
    case .complete(let job): complete(job)
    case .terminate: terminate()
    }
  }

  // MARK: Inputs

  /// Queues an input from outside the runtime.
  @inlinable
  func post(_ input: M.Input, tag: PostTag) -> PostResult {
    guard isAlive else { return .noMachine }
    guard inputs.append(QueuedInput(input: input, tag: tag, token: 0)) else {
      statistics.dropped &+= 1
      return .queueFull
    }
    noteQueued()
    return .accepted
  }

  /// Queues an input produced inside the runtime; a full queue is counted and reported.
  @inlinable
  @discardableResult
  func enqueue(_ input: M.Input, token: UInt64, source: InputSource) -> Bool {
    guard isAlive else { return false }
    guard inputs.append(QueuedInput(input: input, tag: .none, token: token)) else {
      statistics.dropped &+= 1
      runtime.report(.inputQueueFull(id, source))
      return false
    }
    noteQueued()
    return true
  }

  @inlinable
  func noteQueued() {
    statistics.posted &+= 1
    if inputs.count > statistics.queueHighWater { statistics.queueHighWater = inputs.count }
    if !isScheduled { schedule() }
  }

  // MARK: Dispatch

  /// Resolves the next queued input whose effect (if any) was not cancelled meanwhile.
  @inlinable
  func dispatchNext() {
    while let queued = inputs.popFirst() {
      if queued.token != 0 && !claimDelivery(queued.token) {
        statistics.discarded &+= 1
        continue
      }
      resolve(queued.input, tag: queued.tag)
      break
    }
    if isAlive && !isScheduled && !inputs.isEmpty { schedule() }
  }

  /// Checks that the effect behind a delivery is still live and, for the last delivery of a
  /// finished effect, frees its slot (which may start an effect waiting on its queue).
  @inlinable
  func claimDelivery(_ token: UInt64) -> Bool {
    let slot = UInt32(truncatingIfNeeded: token >> 32)
    guard effects.isLive(slot: slot, generation: UInt32(truncatingIfNeeded: token)) else {
      return false
    }
    let entry = effects.slots + Int(slot)
    if entry.pointee.kind != .every {
      entry.pointee.pending -= 1
      if entry.pointee.pending == 0 && entry.pointee.phase == .finishing { finish(Int32(slot)) }
    }
    return true
  }

  @inlinable
  func resolve(_ input: M.Input, tag: PostTag) {
    let (storage, capacity) = withRuntime { runtime in
      runtime.counters.dispatched &+= 1
      let capacity = runtime.capacity.effectsPerResolution
      return (
        runtime.scratch.bindMemory(to: Effect<M.Input, M.Output>.self, capacity: capacity), capacity
      )
    }
    var recorded = Effects<M.Input, M.Output>(storage: storage, capacity: capacity)
    let from = state
    let resolution = M.resolve(input, state: &state, extra: extra, effects: &recorded)
    if recorded.overflow > 0 {
      statistics.effectsOverflowed &+= UInt64(recorded.overflow)
      runtime.report(.effectBufferFull(id, dropped: recorded.overflow))
    }
    switch resolution {
    case .handled:
      statistics.handled &+= 1
      notify(.replied(.success(input, from: from, to: state), tag: tag))
      var index = 0
      while index < recorded.count {
        let effect = (storage + index).move()
        index += 1
        if isAlive { apply(effect) }
      }
    case .rejected:
      state = from
      recorded.discardAll()
      statistics.rejected &+= 1
      notify(.replied(.failure(input, state: state), tag: tag))
    }
  }

  @inlinable
  func notify(_ event: Event) {
    observers.notify(event)
  }

  // MARK: Effects

  @inlinable
  func apply(_ effect: Effect<M.Input, M.Output>) {
    switch effect {
    case .send(let input):
      enqueue(input, token: 0, source: .send)
    case .emit(let output):
      deliver(output)
    case .after(let span, let input, let queue, let id):
      start(.after, span: span, input: input, job: nil, queue: queue, id: id)
    case .every(let span, let input, let queue, let id):
      start(.every, span: span, input: input, job: nil, queue: queue, id: id)
    case .run(let job, let queue, let id):
      start(.job, span: .zero, input: nil, job: job, queue: queue, id: id)
    case .cancel(let id):
      cancel(id)
    }
  }

  /// Sends an output through the redirect, or to observers and outward routes.
  @inlinable
  func deliver(_ output: M.Output) {
    if let redirect, case .back(let input) = redirect(output) {
      enqueue(input, token: 0, source: .route)
      return
    }
    notify(.emitted(output))
    for route in routes { route(output) }
  }

  /// Starts an in-flight effect on its queue, applying the queue's policy.
  @inlinable
  func start(
    _ kind: EffectKind, span: TimeSpan, input: M.Input?, job: Job<M.Input>?,
    queue: EffectQueue, id effectID: EffectID
  ) {
    let queueIndex = effects.queueIndex(queue)
    var waits = false
    if effects.queues[queueIndex].running.count >= effects.queues[queueIndex].limit {
      switch effects.queues[queueIndex].policy {
      case .merge:
        break
      case .latest:
        cancelSlot(effects.queues[queueIndex].running.head)
      case .oldest(_, .discardNew):
        statistics.discarded &+= 1
        return
      case .oldest(_, .suspendNew):
        waits = true
      }
    }
    guard let index = effects.allocate() else {
      overflow(.effectSlotsFull(id))
      return
    }
    let slot = effects.slots + Int(index)
    slot.pointee.kind = kind
    slot.pointee.queue = UInt8(truncatingIfNeeded: queueIndex)
    slot.pointee.id = effectID
    slot.pointee.span = span
    slot.pointee.input = input
    slot.pointee.job = job
    if effects.inFlight > statistics.effectsHighWater {
      statistics.effectsHighWater = effects.inFlight
    }
    slot.pointee.phase = waits ? .waiting : .running
    effects.append(index, toWaiting: waits, of: queueIndex)
    if !waits { launch(index) }
  }

  /// Arms the timer or submits the job of a running slot.
  @inlinable
  func launch(_ index: Int32) {
    let slot = effects.slots + Int(index)
    statistics.effectsStarted &+= 1
    switch slot.pointee.kind {
    case .after, .every:
      let span = slot.pointee.span
      let period: UInt64 =
        slot.pointee.kind == .every ? UInt64(span.nanoseconds > 0 ? span.nanoseconds : 1) : 0
      guard
        let timer = runtime.armTimer(
          deadline: runtime.currentTime.advanced(by: span).nanoseconds, period: period,
          owner: id, slot: UInt32(index), slotGeneration: slot.pointee.generation)
      else {
        let queue = Int(slot.pointee.queue)
        effects.unlink(index, fromWaiting: false, of: queue)
        effects.release(index)
        overflow(.timersFull(id))
        promote(queue)
        return
      }
      slot.pointee.timer = timer
    case .job:
      guard let job = slot.pointee.job else { return }
      runtime.submit(
        TypedPendingJob(
          job: job, machine: id, slot: UInt32(index), generation: slot.pointee.generation))
    }
  }

  @inlinable
  func overflow(_ diagnostic: Diagnostic) {
    statistics.effectsOverflowed &+= 1
    runtime.report(diagnostic)
  }

  /// A timer of this machine fired.
  @inlinable
  func fire(slot index: UInt32, generation: UInt32, disarmed: Bool) {
    guard effects.isLive(slot: index, generation: generation) else { return }
    let slot = effects.slots + Int(index)
    if disarmed { slot.pointee.timer = TimerHeap.none }
    guard slot.pointee.phase == .running, let input = slot.pointee.input else { return }
    let token = UInt64(index) << 32 | UInt64(generation)
    if slot.pointee.kind == .every {
      enqueue(input, token: token, source: .timer)
      return
    }
    slot.pointee.phase = .finishing
    if enqueue(input, token: token, source: .timer) {
      slot.pointee.pending += 1
    } else {
      finish(Int32(index))
    }
  }

  /// A job of this machine came back; its results are queued unless it was cancelled.
  @inlinable
  func complete(_ pending: PendingJob) {
    guard effects.isLive(slot: pending.slot, generation: pending.generation) else { return }
    let slot = effects.slots + Int(pending.slot)
    guard slot.pointee.phase == .running, slot.pointee.kind == .job else { return }
    let job = unsafeDowncast(pending, to: TypedPendingJob<M.Input>.self)
    slot.pointee.phase = .finishing
    slot.pointee.job = nil
    let token = UInt64(pending.slot) << 32 | UInt64(pending.generation)
    for result in job.results where enqueue(result, token: token, source: .job) {
      slot.pointee.pending += 1
    }
    job.results = []
    if slot.pointee.pending == 0 { finish(Int32(pending.slot)) }
  }

  /// Frees the slot of an effect that completed, and starts whatever waited for its place.
  @inlinable
  func finish(_ index: Int32) {
    let queue = Int(effects.slots[Int(index)].queue)
    effects.unlink(index, fromWaiting: false, of: queue)
    effects.release(index)
    promote(queue)
  }

  /// Cancels one effect, running or waiting. The caller starts waiting effects afterwards.
  @inlinable
  func cancelSlot(_ index: Int32) {
    let slot = effects.slots + Int(index)
    if slot.pointee.timer != TimerHeap.none { runtime.disarmTimer(slot.pointee.timer) }
    effects.unlink(index, fromWaiting: slot.pointee.phase == .waiting, of: Int(slot.pointee.queue))
    effects.release(index)
    statistics.effectsCancelled &+= 1
  }

  /// Cancels every effect with `effectID`, then starts effects that now fit on their queues.
  @inlinable
  func cancel(_ effectID: EffectID) {
    guard effectID != .none, effects.inFlight > 0 else { return }
    var cancelled = false
    // Live slots cluster at low indices (freed slots are reused first): stop once every slot
    // that was in flight has been seen.
    var unseen = effects.inFlight
    var index = 0
    while unseen > 0 && index < effects.capacity {
      if effects.slots[index].phase != .free {
        unseen -= 1
        if effects.slots[index].id == effectID {
          cancelSlot(Int32(index))
          cancelled = true
        }
      }
      index += 1
    }
    guard cancelled else { return }
    for queue in 0..<effects.queues.count { promote(queue) }
  }

  /// Starts waiting effects while their queue has room.
  @inlinable
  func promote(_ queue: Int) {
    while effects.queues[queue].running.count < effects.queues[queue].limit {
      let head = effects.queues[queue].waiting.head
      guard head >= 0 else { return }
      effects.unlink(head, fromWaiting: true, of: queue)
      effects.slots[Int(head)].phase = .running
      effects.append(head, toWaiting: false, of: queue)
      launch(head)
    }
  }

  // MARK: Removal

  /// Cancels every effect and timer, drops queued inputs and forgets observers and routes.
  @inlinable
  func terminate() {
    guard isAlive else { return }
    isAlive = false
    for index in 0..<effects.capacity where effects.slots[index].phase != .free {
      if effects.slots[index].timer != TimerHeap.none {
        runtime.disarmTimer(effects.slots[index].timer)
      }
      effects.slots[index].timer = TimerHeap.none
      statistics.effectsCancelled &+= 1
    }
    inputs.removeAll()
    observers.removeAll()
    routes.removeAll()
    redirect = nil
  }

  /// A snapshot of the statistics, with the current queue depth.
  @inlinable
  var currentStatistics: MachineStatistics {
    var snapshot = statistics
    snapshot.queued = inputs.count
    return snapshot
  }
}
