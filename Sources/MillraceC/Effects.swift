import CMillrace

// Effects: recorded by a resolver on its handle and applied after its reply, in the order
// recorded; timers run on the machine's queues under their policies and are cancelled by
// id. Once cancelled, a timer never delivers: its cell's generation changes, and a delivery
// of it still queued no longer matches.

/// What a resolver records on (`millrace_effects_t *`): lives on the stack of its dispatch.
struct _Handle {
  let runtime: _RuntimePointer
  let slot: UInt16
  var count: UInt16 = 0
  /// Effects refused because the buffer was full.
  var overflow: UInt16 = 0
}

extension UnsafeMutablePointer where Pointee == _Handle {
  /// Records `effect`: `MILLRACE_INVALID` for a queue the machine lacks,
  /// `MILLRACE_NO_CAPACITY` when the resolution's buffer is full (counted, and reported once
  /// the resolver returns).
  @inline(never)
  func record(_ effect: _Recorded) -> Int32 {
    let runtime = pointee.runtime
    guard runtime.queue(pointee.slot, effect.queue) != nil else { return MILLRACE_INVALID.code }
    guard Int(pointee.count) < Int(runtime.pointee.counts.recorded) else {
      pointee.overflow &+= 1
      return MILLRACE_NO_CAPACITY.code
    }
    runtime.pointee.recorded[Int(pointee.count)] = effect
    pointee.count &+= 1
    return MILLRACE_OK.code
  }
}

extension UnsafeMutablePointer where Pointee == _Runtime {
  /// Queue `index` of the machine in `slot`, or nil when it has fewer.
  @inline(never)
  func queue(_ slot: UInt16, _ index: UInt8) -> UnsafeMutablePointer<_Queue>? {
    var entry = machine(slot).pointee.queueHead
    for _ in 0..<index where entry != _none { entry = pointee.queues[entry].pointee.next }
    return entry == _none ? nil : pointee.queues[entry]
  }

  /// Counts and reports a diagnostic to the diagnostic observer.
  @inline(never)
  func report(
    _ kind: millrace_diagnostic_kind_t, _ slot: UInt16, source: millrace_input_source_t? = nil,
    dropped: UInt32 = 0
  ) {
    pointee.diagnostics &+= 1
    var diagnostic = millrace_diagnostic_t(
      kind: Int32(bitPattern: kind.rawValue), source: Int32(bitPattern: source?.rawValue ?? 0),
      dropped: dropped, machine: id(of: slot))
    if let diagnose = pointee.diagnose { diagnose(pointee.diagnoseContext, &diagnostic) }
  }

  /// Starts the timer `effect` records for the machine in `slot`, under its queue's policy:
  /// dropped by a full `oldest` queue that discards, waiting on one that suspends, replacing
  /// the oldest on a full `latest` queue.
  func start(_ slot: UInt16, _ effect: _Recorded) {
    let machine = machine(slot)
    let queue = queue(slot, effect.queue).unsafelyUnwrapped
    var full =
      queue.pointee.policy != MILLRACE_MERGE.rawValue && queue.pointee.running >= queue.pointee.max
    if full && queue.pointee.policy == MILLRACE_OLDEST_DISCARD.rawValue {
      pointee.discarded &+= 1
      return
    }
    if full && queue.pointee.policy == MILLRACE_LATEST.rawValue {
      var oldest = machine.pointee.effectHead
      while pointee.effects[oldest].pointee.queue != effect.queue
        || pointee.effects[oldest].pointee.isWaiting
      {
        oldest = pointee.effects[oldest].pointee.next
      }
      pointee.cancelled &+= 1
      finish(oldest, promote: false)
      full = false
    }
    var count: UInt16 = 0
    var last = _none
    var link = machine.pointee.effectHead
    while link != _none {
      count &+= 1
      last = link
      link = pointee.effects[link].pointee.next
    }
    guard count < pointee.counts.effectsPerMachine, let cell = pointee.effects.take() else {
      pointee.overflowed &+= 1
      report(MILLRACE_DIAG_EFFECT_SLOTS_FULL, slot)
      return
    }
    let timer = pointee.effects[cell]
    let generation = timer.pointee.generation
    timer.pointee = _EffectCell(
      span: effect.span, id: effect.id, input: effect.value, machine: slot,
      generation: generation, queue: effect.queue,
      flags: effect.kind == _Recorded.every ? _EffectCell.every : 0)
    if last == _none {
      machine.pointee.effectHead = cell
    } else {
      pointee.effects[last].pointee.next = cell
    }
    machine.pointee.effectsHighWater = max(machine.pointee.effectsHighWater, count &+ 1)
    guard full else { return run(cell) }
    timer.pointee.isWaiting = true
    if queue.pointee.waitTail == _none {
      queue.pointee.waitHead = cell
    } else {
      pointee.effects[queue.pointee.waitTail].pointee.waitNext = cell
    }
    queue.pointee.waitTail = cell
  }

  /// Runs `cell` on its queue: armed at the current time plus its span, or ended and
  /// reported when the timer table is full.
  @inline(never)
  func run(_ cell: UInt16) {
    let timer = pointee.effects[cell]
    queue(timer.pointee.machine, timer.pointee.queue).unsafelyUnwrapped.pointee.running &+= 1
    timer.pointee.deadline = pointee.now &+ timer.pointee.span
    guard arm(cell) else {
      pointee.overflowed &+= 1
      report(MILLRACE_DIAG_TIMERS_FULL, timer.pointee.machine)
      return finish(cell, promote: false)
    }
    pointee.started &+= 1
  }

  /// Ends the in-flight effect `cell`: disarmed, off its machine's list and its queue, its
  /// cell freed under a new generation; with `promote`, the timers waiting on its queue then
  /// start while there is room.
  @inline(never)
  func finish(_ cell: UInt16, promote: Bool) {
    let timer = pointee.effects[cell]
    let slot = timer.pointee.machine
    let machine = machine(slot)
    let queue = queue(slot, timer.pointee.queue).unsafelyUnwrapped
    if timer.pointee.heap != _none { disarm(cell) }
    if machine.pointee.effectHead == cell {
      machine.pointee.effectHead = timer.pointee.next
    } else {
      var link = machine.pointee.effectHead
      while pointee.effects[link].pointee.next != cell { link = pointee.effects[link].pointee.next }
      pointee.effects[link].pointee.next = timer.pointee.next
    }
    if timer.pointee.isWaiting {
      var previous = _none
      var link = queue.pointee.waitHead
      while link != cell {
        previous = link
        link = pointee.effects[link].pointee.waitNext
      }
      if previous == _none {
        queue.pointee.waitHead = timer.pointee.waitNext
      } else {
        pointee.effects[previous].pointee.waitNext = timer.pointee.waitNext
      }
      if queue.pointee.waitTail == cell { queue.pointee.waitTail = previous }
    } else {
      queue.pointee.running &-= 1
    }
    timer.pointee.generation &+= 1
    timer.pointee.machine = _none
    pointee.effects.give(cell)
    if promote { self.promote(queue) }
  }

  /// Starts the timers waiting on `queue`, oldest first, while fewer than its maximum run.
  func promote(_ queue: UnsafeMutablePointer<_Queue>) {
    while queue.pointee.waitHead != _none && queue.pointee.running < queue.pointee.max {
      let cell = queue.pointee.waitHead
      queue.pointee.waitHead = pointee.effects[cell].pointee.waitNext
      if queue.pointee.waitHead == _none { queue.pointee.waitTail = _none }
      pointee.effects[cell].pointee.isWaiting = false
      run(cell)
    }
  }

  /// Cancels every in-flight effect of the machine in `slot` with `id`, then starts what waits
  /// on its queues where room was made.
  @inline(never)
  func cancel(_ slot: UInt16, id: UInt64) {
    var link = machine(slot).pointee.effectHead
    while link != _none {
      let next = pointee.effects[link].pointee.next
      if pointee.effects[link].pointee.id == id {
        pointee.cancelled &+= 1
        finish(link, promote: false)
      }
      link = next
    }
    var entry = machine(slot).pointee.queueHead
    while entry != _none {
      promote(pointee.queues[entry])
      entry = pointee.queues[entry].pointee.next
    }
  }

  /// The earliest timer fires at the current time: its input is queued for its machine, and
  /// an `every` is armed again a period later. An `after` stays in flight until its delivery
  /// is resolved, and ends at once when its machine's queue is full (reported).
  @inline(never)
  func fire(_ cell: UInt16) {
    let timer = pointee.effects[cell]
    let slot = timer.pointee.machine
    disarm(cell)
    let delivered = enqueue(
      slot, timer.pointee.input, tag: UInt64(timer.pointee.generation), timer: cell)
    if !delivered { report(MILLRACE_DIAG_INPUT_QUEUE_FULL, slot, source: MILLRACE_SOURCE_TIMER) }
    if timer.pointee.isEvery {
      timer.pointee.deadline &+= timer.pointee.span
      _ = arm(cell)
    } else if !delivered {
      finish(cell, promote: true)
    }
  }
}
