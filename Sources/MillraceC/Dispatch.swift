import CMillrace

// Steps: time moves from deadline to deadline up to the caller's instant, as if it passed
// continuously; at each instant the timers due fire, then every queued input is resolved, the
// ready machines taking turns one input each.

extension UnsafeMutablePointer where Pointee == _Runtime {
  /// Runs up to `target`, resolving at most `limit` inputs; how many it resolved.
  func step(to target: UInt64, limit: Int) -> Int {
    guard !pointee.isStepping else { return 0 }
    pointee.isStepping = true
    defer { pointee.isStepping = false }
    var resolved = 0
    repeat {
      // To the earliest deadline, or to `target` when none comes before it; never back.
      pointee.now = max(pointee.now, min(earliest ?? .max, target))
      while let due = earliest, due <= pointee.now { fire(pointee.heap[0]) }
      while let slot = takeReady() {
        if dispatch(slot) { resolved += 1 }
        if machine(slot).pointee.inputTail != _none && !isScheduled(slot) { schedule(slot) }
        if resolved == limit { return resolved }
      }
    } while (earliest ?? .max) <= target
    pointee.now = max(pointee.now, target)
    return resolved
  }

  /// Resolves the oldest queued input of the machine in `slot`, replies to its observers and
  /// applies its effects; false when the input was the delivery of a timer cancelled since
  /// (discarded, nothing resolved).
  func dispatch(_ slot: UInt16) -> Bool {
    guard let cell = popInput(slot) else { return false }
    var queued = pointee.inputs[cell].pointee
    pointee.inputs.give(cell)
    if queued.timer != _none {
      let timer = pointee.effects[queued.timer]
      guard timer.pointee.machine == slot, UInt64(timer.pointee.generation) == queued.tag else {
        pointee.discarded &+= 1
        return false
      }
      if !timer.pointee.isEvery { finish(queued.timer, promote: true) }
      queued.tag = 0
    }
    let machine = machine(slot)
    let generation = machine.pointee.generation
    let from = machine.pointee.state
    var state = from
    var handle = _Handle(runtime: self, slot: slot)
    let verdict = withUnsafeMutablePointer(to: &handle) { handle in
      machine.pointee.resolve.unsafelyUnwrapped(
        machine.pointee.context, queued.input, &state, OpaquePointer(handle))
    }
    pointee.dispatched &+= 1
    // Removed by its own resolver: no reply, no effect.
    guard machine.pointee.generation == generation else { return true }
    if handle.overflow > 0 {
      pointee.overflowed &+= UInt64(handle.overflow)
      report(MILLRACE_DIAG_EFFECT_BUFFER_FULL, slot, dropped: UInt32(handle.overflow))
    }
    var event = millrace_event_t()
    event.input = queued.input
    event.from = from
    event.to = from
    event.tag = queued.tag
    guard verdict == MILLRACE_HANDLED else {
      machine.pointee.rejected &+= 1
      event.kind = Int32(bitPattern: MILLRACE_EVENT_REJECTED.rawValue)
      notify(slot, event)
      return true
    }
    machine.pointee.handled &+= 1
    machine.pointee.state = state
    event.kind = Int32(bitPattern: MILLRACE_EVENT_HANDLED.rawValue)
    event.to = state
    notify(slot, event)
    var index = 0
    while index < Int(handle.count) && machine.pointee.generation == generation {
      apply(pointee.recorded[index], slot)
      index += 1
    }
    return true
  }

  /// Applies one recorded effect of the machine in `slot`.
  @inline(never)
  func apply(_ effect: _Recorded, _ slot: UInt16) {
    switch effect.kind {
    case _Recorded.send:
      if !enqueue(slot, effect.value, tag: 0) {
        report(MILLRACE_DIAG_INPUT_QUEUE_FULL, slot, source: MILLRACE_SOURCE_SEND)
      }
    case _Recorded.emit:
      var event = millrace_event_t()
      event.kind = Int32(bitPattern: MILLRACE_EVENT_OUTPUT.rawValue)
      event.output = effect.value
      notify(slot, event)
    case _Recorded.cancel:
      cancel(slot, id: effect.id)
    default:
      start(slot, effect)
    }
  }
}
