import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

// The machine half of the C API (millrace.h, "Machines"): spawn, remove, post, state,
// observers and statistics. Each function documents its C contract in the header; these are
// the implementations.

/// `millrace_spawn`: a `CMachine` with the config's resolver, context and queues.
@_cdecl("millrace_spawn")
func cSpawn(
  _ pointer: OpaquePointer?, _ config: UnsafePointer<millrace_machine_config_t>?,
  _ machine: UnsafeMutablePointer<millrace_machine_t>?
) -> Int32 {
  guard let owner = CRuntime.from(pointer), let config = config?.pointee, let machine,
    let resolve = config.resolve, config.queue_count <= MILLRACE_QUEUES_MAX,
    config.queue_count == 0 || config.queues != nil,
    let inputCapacity = capacityValue(
      config.input_capacity, default: owner.runtime.capacity.inputsPerMachine),
    inputCapacity <= RuntimeCapacity.maxInputs
  else { return MILLRACE_INVALID.code }
  for index in 0..<Int(config.queue_count) where QueuePolicy(c: config.queues[index]) == nil {
    return MILLRACE_INVALID.code
  }
  return owner.withMemory {
    guard Room.has(Room.spawn(queues: Int(config.queue_count))) else {
      _ = owner.runtime.refuseSpawn(.outOfMemory)
      return MILLRACE_NO_CAPACITY.code
    }
    var queues: [QueuePolicy] = []
    queues.reserveCapacity(config.queue_count == 0 ? 1 : Int(config.queue_count))
    for index in 0..<Int(config.queue_count) {
      queues.append(QueuePolicy(c: config.queues[index]).unsafelyUnwrapped)
    }
    if queues.isEmpty { queues.append(.merge) }
    let extra = CResolver(
      resolve: resolve, context: config.context, queueCount: UInt32(queues.count))
    do throws(SpawnError) {
      let handle = try owner.runtime.spawn(
        CMachine.self, state: config.initial_state, extra: extra, queues: queues,
        inputCapacity: inputCapacity)
      machine.pointee = handle.id.c
      return MILLRACE_OK.code
    } catch {
      return MILLRACE_NO_CAPACITY.code
    }
  }
}

/// `millrace_remove`: cancels the machine's timers and forgets it.
@_cdecl("millrace_remove")
func cRemove(_ pointer: OpaquePointer?, _ machine: millrace_machine_t) -> Int32 {
  guard let owner = CRuntime.from(pointer) else { return MILLRACE_INVALID.code }
  guard let handle = owner.machine(machine) else { return MILLRACE_NO_MACHINE.code }
  owner.withMemory { owner.runtime.remove(handle) }
  return MILLRACE_OK.code
}

/// `millrace_post`: an untagged post.
@_cdecl("millrace_post")
func cPost(_ pointer: OpaquePointer?, _ machine: millrace_machine_t, _ input: Int32) -> Int32 {
  cPostTagged(pointer, machine, input, 0)
}

/// `millrace_post_tagged`: queues the input with the caller's tag.
@_cdecl("millrace_post_tagged")
func cPostTagged(
  _ pointer: OpaquePointer?, _ machine: millrace_machine_t, _ input: Int32, _ tag: UInt64
) -> Int32 {
  guard let owner = CRuntime.from(pointer) else { return MILLRACE_INVALID.code }
  guard let handle = owner.machine(machine) else { return MILLRACE_NO_MACHINE.code }
  return handle.post(input, tag: PostTag(tag)).code
}

/// `millrace_state`: the machine's current state.
@_cdecl("millrace_state")
func cState(
  _ pointer: OpaquePointer?, _ machine: millrace_machine_t, _ state: UnsafeMutablePointer<Int32>?
) -> Int32 {
  guard let owner = CRuntime.from(pointer), let state else { return MILLRACE_INVALID.code }
  guard let current = owner.machine(machine)?.state else { return MILLRACE_NO_MACHINE.code }
  state.pointee = current
  return MILLRACE_OK.code
}

/// `millrace_observe`: forwards every reply and output of the machine to a C callback.
@_cdecl("millrace_observe")
func cObserve(
  _ pointer: OpaquePointer?, _ machine: millrace_machine_t,
  _ observer: millrace_observer_fn?,
  _ context: UnsafeMutableRawPointer?
) -> Int32 {
  guard let owner = CRuntime.from(pointer), let observer else { return MILLRACE_INVALID.code }
  guard let handle = owner.machine(machine) else { return MILLRACE_NO_MACHINE.code }
  return owner.withMemory {
    guard Room.has(Room.observe),
      handle.observe({ event in
        var converted = millrace_event_t(event)
        observer(context, machine, &converted)
      }) != nil
    else { return MILLRACE_NO_CAPACITY.code }
    return MILLRACE_OK.code
  }
}

/// `millrace_machine_stats`: a snapshot of the machine's counters.
@_cdecl("millrace_machine_stats")
func cMachineStats(
  _ pointer: OpaquePointer?, _ machine: millrace_machine_t,
  _ stats: UnsafeMutablePointer<millrace_machine_stats_t>?
) -> Int32 {
  guard let owner = CRuntime.from(pointer), let stats else { return MILLRACE_INVALID.code }
  guard let handle = owner.machine(machine) else { return MILLRACE_NO_MACHINE.code }
  stats.pointee = millrace_machine_stats_t(handle.statistics)
  return MILLRACE_OK.code
}
