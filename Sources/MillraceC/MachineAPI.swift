import CMillrace

// The machines half of the C API (millrace.h, "Machines"). The header documents each
// function's contract; these are the implementations.

/// Runs `body` with the runtime behind `handle` and the slot of its live machine `id`;
/// `MILLRACE_INVALID` for a NULL runtime, `MILLRACE_NO_MACHINE` for an id that names none.
func _withMachine(
  _ handle: OpaquePointer?, _ id: millrace_machine_t, _ body: (_RuntimePointer, UInt16) -> Int32
) -> Int32 {
  guard let runtime = _runtime(handle) else { return MILLRACE_INVALID.code }
  guard let slot = runtime.slot(of: id) else { return MILLRACE_NO_MACHINE.code }
  return body(runtime, slot)
}

/// `millrace_spawn`.
@_cdecl("millrace_spawn")
func cSpawn(
  _ handle: OpaquePointer?, _ config: UnsafePointer<millrace_machine_config_t>?,
  _ out: UnsafeMutablePointer<millrace_machine_t>?
) -> Int32 {
  guard let runtime = _runtime(handle), let config, let out else { return MILLRACE_INVALID.code }
  return runtime.spawn(config.pointee, into: out)
}

/// `millrace_remove`.
@_cdecl("millrace_remove")
func cRemove(_ handle: OpaquePointer?, _ id: millrace_machine_t) -> Int32 {
  _withMachine(handle, id) { runtime, slot in
    runtime.remove(slot)
    return MILLRACE_OK.code
  }
}

/// `millrace_post_tagged`.
@_cdecl("millrace_post_tagged")
func cPostTagged(
  _ handle: OpaquePointer?, _ id: millrace_machine_t, _ input: Int32, _ tag: UInt64
) -> Int32 {
  _withMachine(handle, id) { runtime, slot in
    runtime.enqueue(slot, input, tag: tag) ? MILLRACE_OK.code : MILLRACE_QUEUE_FULL.code
  }
}

/// `millrace_post`.
@_cdecl("millrace_post")
func cPost(_ handle: OpaquePointer?, _ id: millrace_machine_t, _ input: Int32) -> Int32 {
  cPostTagged(handle, id, input, 0)
}

/// `millrace_state`.
@_cdecl("millrace_state")
func cState(
  _ handle: OpaquePointer?, _ id: millrace_machine_t, _ state: UnsafeMutablePointer<Int32>?
) -> Int32 {
  guard let state else { return MILLRACE_INVALID.code }
  return _withMachine(handle, id) { runtime, slot in
    state.pointee = runtime.machine(slot).pointee.state
    return MILLRACE_OK.code
  }
}

/// `millrace_observe`.
@_cdecl("millrace_observe")
func cObserve(
  _ handle: OpaquePointer?, _ id: millrace_machine_t, _ observer: millrace_observer_fn?,
  _ context: UnsafeMutableRawPointer?
) -> Int32 {
  guard let observer else { return MILLRACE_INVALID.code }
  return _withMachine(handle, id) { runtime, slot in runtime.observe(slot, observer, context) }
}

/// `millrace_machine_stats`.
@_cdecl("millrace_machine_stats")
func cMachineStats(
  _ handle: OpaquePointer?, _ id: millrace_machine_t,
  _ stats: UnsafeMutablePointer<millrace_machine_stats_t>?
) -> Int32 {
  guard let stats else { return MILLRACE_INVALID.code }
  return _withMachine(handle, id) { runtime, slot in
    let machine = runtime.machine(slot).pointee
    stats.pointee = millrace_machine_stats_t(
      posted: machine.posted, handled: machine.handled, rejected: machine.rejected,
      dropped: machine.dropped, queued: UInt32(machine.inputCount),
      queue_high_water: UInt32(machine.queueHighWater),
      effects_high_water: UInt32(machine.effectsHighWater))
    return MILLRACE_OK.code
  }
}
