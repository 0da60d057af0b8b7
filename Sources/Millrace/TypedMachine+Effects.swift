/// Effects: applying recorded effects, and the in-flight ones (timers, jobs) on the
/// machine's queues, with their policies and cancellation.
extension _TypedMachine {
  /// Applies one recorded effect, consuming it (its payload moves on; nothing of it is
  /// copied and destroyed). Inlined into `resolve`: `send`, the effect of a machine that feeds
  /// itself, is on the input path, and starting or cancelling an effect pays no call.
  @inlinable
  @inline(__always)
  func apply(_ effect: consuming Effect<M.Input, M.Output>) {
    switch consume effect {
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

  /// Sends an output through the redirect, or to observers (the machine's and its type's,
  /// `Runtime.observeAll`) and outward routes.
  @inlinable
  func deliver(_ output: M.Output) {
    guard let side else {
      // No redirect or route: only the type's observer, if any, sees it.
      notify(.emitted(output))
      return
    }
    if let redirect = side.pointee.redirect, case .back(let input) = redirect(output) {
      enqueue(input, token: 0, source: .route)
      return
    }
    notify(.emitted(output))
    var index = 0
    while index < side.pointee.routes.count && isAlive {
      side.pointee.routes[index](output)
      index &+= 1
    }
  }

  /// Starts an in-flight effect on its queue, applying the queue's policy.
  @inlinable
  func start(
    _ effectKind: _EffectKind, span: TimeSpan, input: M.Input?, job: Job<M.Input>?,
    queue: EffectQueue, id effectID: EffectID
  ) {
    let effects = self.effects
    let queueIndex = effects.queueIndex(queue)
    var waits = false
    if let running = effects.list(queueIndex, waiting: false),
      Int(running.pointee.count) >= layout.pointee.queues[queueIndex].limit
    {
      switch layout.pointee.queues[queueIndex].policy {
      case .merge:
        break
      case .latest:
        cancelSlot(running.pointee.head)
      case .oldest(_, .discardNew):
        withRuntime { $0._counters.discarded &+= 1 }
        return
      case .oldest(_, .suspendNew):
        waits = true
      }
    }
    guard let index = effects.allocate() else {
      overflow(.effectSlotsFull(id))
      return
    }
    let slot = effects.slot(index)
    slot.pointee.kind = effectKind
    slot.pointee.queue = UInt8(truncatingIfNeeded: queueIndex)
    slot.pointee.id = effectID
    slot.pointee.span = span
    slot.pointee.input = input
    // A new slot holds no job: only a `run` effect's is stored (storing nil over nil still
    // releases the old value).
    if job != nil { slot.pointee.job = job }
    slot.pointee.phase = waits ? .waiting : .running
    effects.append(index, toWaiting: waits, of: queueIndex)
    if !waits { launch(index) }
  }

  /// Arms the timer or submits the job of a running slot.
  @inlinable
  func launch(_ index: UInt32) {
    let effects = self.effects
    let slot = effects.slot(index)
    withRuntime { $0._counters.effectsStarted &+= 1 }
    switch slot.pointee.kind {
    case .after, .every:
      let span = slot.pointee.span
      let period: UInt64 =
        slot.pointee.kind == .every ? UInt64(span.nanoseconds > 0 ? span.nanoseconds : 1) : 0
      let (id, generation) = (self.id, slot.pointee.generation)
      guard
        let timer = withRuntime({ runtime in
          runtime._armTimer(
            deadline: runtime._timerStart().advanced(by: span).nanoseconds, period: period,
            owner: id, slot: index, slotGeneration: generation)
        })
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
      let pending = _TypedPendingJob(
        job: job, machine: id, slot: index, generation: slot.pointee.generation)
      withRuntime { $0._submit(pending) }
    }
  }

  @inlinable
  func overflow(_ diagnostic: Diagnostic) {
    withRuntime { runtime in
      runtime._counters.effectsOverflowed &+= 1
      runtime._report(diagnostic)
    }
  }

  /// A timer of this machine fired.
  @inlinable
  func fire(slot index: UInt32, generation: UInt32, disarmed: Bool) {
    let effects = self.effects
    guard effects.isLive(slot: index, generation: generation) else { return }
    let slot = effects.slot(index)
    if disarmed { slot.pointee.timer = _TimerHeap.none }
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
      finish(index)
    }
  }

  /// A job of this machine came back; its results are queued unless it was cancelled.
  @inlinable
  func complete(_ pending: PendingJob) {
    let effects = self.effects
    guard effects.isLive(slot: pending._slot, generation: pending._generation) else { return }
    let slot = effects.slot(pending._slot)
    guard slot.pointee.phase == .running, slot.pointee.kind == .job else { return }
    let job = unsafeDowncast(pending, to: _TypedPendingJob<M.Input>.self)
    slot.pointee.phase = .finishing
    slot.pointee.job = nil
    let token = UInt64(pending._slot) << 32 | UInt64(pending._generation)
    for result in job.results where enqueue(result, token: token, source: .job) {
      slot.pointee.pending += 1
    }
    job.results = []
    if slot.pointee.pending == 0 { finish(pending._slot) }
  }

  /// Frees the slot of an effect that completed, and starts whatever waited for its place.
  @inlinable
  func finish(_ index: UInt32) {
    let effects = self.effects
    let queue = Int(effects.slot(index).pointee.queue)
    effects.unlink(index, fromWaiting: false, of: queue)
    effects.release(index)
    promote(queue)
  }

  /// Cancels one effect, running or waiting. The caller starts waiting effects afterwards.
  @inlinable
  func cancelSlot(_ index: UInt32) {
    let effects = self.effects
    let slot = effects.slot(index)
    let timer = slot.pointee.timer
    if timer != _TimerHeap.none { withRuntime { $0._disarmTimer(timer) } }
    effects.unlink(index, fromWaiting: slot.pointee.phase == .waiting, of: Int(slot.pointee.queue))
    effects.release(index)
    withRuntime { $0._counters.effectsCancelled &+= 1 }
  }

  /// Cancels every effect with `effectID`, then starts effects that now fit on their queues.
  @inlinable
  func cancel(_ effectID: EffectID) {
    let effects = self.effects
    guard effectID != .none, effects.inFlight > 0 else { return }
    // The queues that lost an effect, one bit each (queues from 63 on share the last bit):
    // only those can have room for a waiting effect now.
    var touched: UInt64 = 0
    var index = record.pointee.effectHead
    while index != _CellPool.none {
      let slot = effects.slot(index)
      let next = slot.pointee.link
      if slot.pointee.id == effectID {
        touched |= _TypedMachine.queueBit(Int(slot.pointee.queue))
        cancelSlot(index)
      }
      index = next
    }
    guard touched != 0 else { return }
    for queue in 0..<layout.pointee.queueCount where touched & _TypedMachine.queueBit(queue) != 0 {
      promote(queue)
    }
  }

  /// The bit of `queue` in `cancel`'s set of touched queues.
  @inlinable
  static func queueBit(_ queue: Int) -> UInt64 {
    1 << UInt64(queue < 63 ? queue : 63)
  }

  /// Starts waiting effects while their queue has room (`merge` queues never have waiting
  /// effects).
  @inlinable
  func promote(_ queue: Int) {
    let effects = self.effects
    guard let running = effects.list(queue, waiting: false),
      let waiting = effects.list(queue, waiting: true)
    else { return }
    while Int(running.pointee.count) < layout.pointee.queues[queue].limit {
      let head = waiting.pointee.head
      guard head != _CellPool.none else { return }
      effects.unlink(head, fromWaiting: true, of: queue)
      effects.slot(head).pointee.phase = .running
      effects.append(head, toWaiting: false, of: queue)
      launch(head)
    }
  }
}
