import CMillrace

// Machines: ids, spawn and removal, observers.

extension UnsafeMutablePointer where Pointee == _Runtime {
  /// The machine in `slot`.
  func machine(_ slot: UInt16) -> UnsafeMutablePointer<_Machine> { pointee.machines[slot] }

  /// The slot of the live machine `id` names, or nil (never spawned, removed, or beyond the
  /// capacity).
  func slot(of id: millrace_machine_t) -> UInt16? {
    let index = UInt32(truncatingIfNeeded: id)
    guard index < UInt32(Int(pointee.counts.machines)) else { return nil }
    let machine = machine(UInt16(index))
    guard machine.pointee.resolve != nil, UInt64(machine.pointee.generation) == id >> 32 else {
      return nil
    }
    return UInt16(index)
  }

  /// The id of the machine in `slot`: its generation, then its slot; never 0.
  func id(of slot: UInt16) -> millrace_machine_t {
    UInt64(machine(slot).pointee.generation) << 32 | UInt64(slot)
  }

  /// Spawns a machine as `config` says (its queues checked) and writes its id to `out`.
  func spawn(
    _ config: millrace_machine_config_t, into out: UnsafeMutablePointer<millrace_machine_t>
  ) -> Int32 {
    let queueCount = Int(max(config.queue_count, 1))
    guard let resolve = config.resolve, config.queues != nil || config.queue_count == 0,
      config.queue_count <= MILLRACE_QUEUES_MAX,
      config.input_capacity <= MILLRACE_INPUTS_MAX
    else { return MILLRACE_INVALID.code }
    for index in 0..<Int(config.queue_count) {
      let queue = config.queues.unsafelyUnwrapped[index]
      let known = queue.policy >= 0 && queue.policy <= MILLRACE_OLDEST_DISCARD.code
      let bounded = queue.max >= 1 && queue.max <= MILLRACE_CAPACITY_MAX
      guard known && (bounded || queue.policy == MILLRACE_MERGE.code) else {
        return MILLRACE_INVALID.code
      }
    }
    guard pointee.queues.available >= queueCount, let slot = pointee.machines.take() else {
      pointee.spawnsRefused &+= 1
      return MILLRACE_NO_CAPACITY.code
    }
    let machine = machine(slot)
    let generation = machine.pointee.generation
    machine.pointee = _Machine()
    machine.pointee.resolve = resolve
    machine.pointee.context = config.context
    machine.pointee.state = config.initial_state
    machine.pointee.generation = generation
    // Taken in reverse, each linked to the one after it: queue 0 ends up first.
    for index in (0..<queueCount).reversed() {
      let entry = pointee.queues.take().unsafelyUnwrapped
      let queue = pointee.queues[entry]
      queue.pointee = _Queue()
      if index < Int(config.queue_count) {
        let given = config.queues.unsafelyUnwrapped[index]
        queue.pointee.policy = UInt8(truncatingIfNeeded: given.policy)
        queue.pointee.max = UInt16(clamping: given.max)
      }
      queue.pointee.next = machine.pointee.queueHead
      machine.pointee.queueHead = entry
    }
    pointee.queues[machine.pointee.queueHead].pointee.inputCapacity =
      config.input_capacity == 0
      ? pointee.counts.inputsPerMachine : UInt16(config.input_capacity)
    pointee.alive &+= 1
    pointee.aliveHighWater = max(pointee.aliveHighWater, pointee.alive)
    out.pointee = id(of: slot)
    return MILLRACE_OK.code
  }

  /// Removes the machine in `slot`: its timers cancelled (a delivery of theirs still queued
  /// anywhere is then discarded), its inputs dropped, its observers and queues freed, and its
  /// slot freed under a new generation.
  func remove(_ slot: UInt16) {
    let machine = machine(slot)
    while machine.pointee.effectHead != _none {
      pointee.cancelled &+= 1
      finish(machine.pointee.effectHead, promote: false)
    }
    while let cell = popInput(slot) { pointee.inputs.give(cell) }
    while machine.pointee.observerHead != _none {
      let observer = machine.pointee.observerHead
      machine.pointee.observerHead = pointee.observers[observer].pointee.next
      pointee.observers[observer].pointee = _Observer()
      pointee.observers.give(observer)
    }
    while machine.pointee.queueHead != _none {
      let queue = machine.pointee.queueHead
      machine.pointee.queueHead = pointee.queues[queue].pointee.next
      pointee.queues.give(queue)
    }
    if isScheduled(slot) { unschedule(slot) }
    let generation = machine.pointee.generation &+ 1
    machine.pointee = _Machine()
    machine.pointee.generation = generation == 0 ? 1 : generation
    pointee.machines.give(slot)
    pointee.alive &-= 1
  }

  /// Registers `observe` for the machine in `slot`, after those registered before it.
  func observe(
    _ slot: UInt16, _ observe: millrace_observer_fn, _ context: UnsafeMutableRawPointer?
  ) -> Int32 {
    guard let observer = pointee.observers.take() else { return MILLRACE_NO_CAPACITY.code }
    pointee.observers[observer].pointee = _Observer(observe: observe, context: context)
    let machine = machine(slot)
    if machine.pointee.observerHead == _none {
      machine.pointee.observerHead = observer
    } else {
      var last = machine.pointee.observerHead
      while pointee.observers[last].pointee.next != _none {
        last = pointee.observers[last].pointee.next
      }
      pointee.observers[last].pointee.next = observer
    }
    return MILLRACE_OK.code
  }

  /// Gives `event` to the observers of the machine in `slot` registered when it was raised,
  /// in registration order, for as long as the machine lives (an observer may remove it).
  @inline(never)
  func notify(_ slot: UInt16, _ event: millrace_event_t) {
    let machine = machine(slot)
    let generation = machine.pointee.generation
    let id = id(of: slot)
    var last = machine.pointee.observerHead
    guard last != _none else { return }
    while pointee.observers[last].pointee.next != _none {
      last = pointee.observers[last].pointee.next
    }
    var next = machine.pointee.observerHead
    withUnsafePointer(to: event) { event in
      while machine.pointee.generation == generation {
        let observer = pointee.observers[next].pointee
        observer.observe.unsafelyUnwrapped(observer.context, id, event)
        if next == last { break }
        next = observer.next
      }
    }
  }
}

extension millrace_policy_t {
  /// The value a `millrace_queue_t` holds.
  var code: Int32 { Int32(bitPattern: rawValue) }
}
