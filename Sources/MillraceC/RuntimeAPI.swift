import CMillrace

// The runtime half of the C API (millrace.h, "Runtime" and "Memory"). The header documents
// each function's contract; these are the implementations.

/// The runtime behind a `millrace_runtime_t *`.
func _runtime(_ handle: OpaquePointer?) -> _RuntimePointer? {
  handle.map { _RuntimePointer($0) }
}

/// `millrace_runtime_bytes`.
@_cdecl("millrace_runtime_bytes")
func cRuntimeBytes(_ capacity: UnsafePointer<millrace_capacity_t>?) -> Int {
  guard let layout = _Layout(capacity?.pointee ?? millrace_capacity_t()) else { return 0 }
  return layout.bytes + _Layout.alignment - 1
}

/// `millrace_create`.
@_cdecl("millrace_create")
func cCreate(
  _ capacity: UnsafePointer<millrace_capacity_t>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let out, let layout = _Layout(capacity?.pointee ?? millrace_capacity_t()) else {
    return MILLRACE_INVALID.code
  }
  guard let runtime = _Runtime.make(onHeap: layout) else { return MILLRACE_NO_CAPACITY.code }
  out.pointee = OpaquePointer(runtime)
  return MILLRACE_OK.code
}

/// `millrace_create_in`.
@_cdecl("millrace_create_in")
func cCreateIn(
  // `size_t` taken as `UInt`: a size above `Int.max` is a large buffer, not a negative one.
  _ buffer: UnsafeMutableRawPointer?, _ size: UInt,
  _ capacity: UnsafePointer<millrace_capacity_t>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let buffer, let out, let layout = _Layout(capacity?.pointee ?? millrace_capacity_t())
  else { return MILLRACE_INVALID.code }
  let skip = UInt(bitPattern: -Int(bitPattern: buffer)) & UInt(_Layout.alignment - 1)
  guard size >= skip, size - skip >= UInt(layout.bytes) else { return MILLRACE_NO_CAPACITY.code }
  out.pointee = OpaquePointer(_Runtime.make(in: buffer + Int(skip), layout))
  return MILLRACE_OK.code
}

/// `millrace_set_allocator`.
@_cdecl("millrace_set_allocator")
func cSetAllocator(_ allocator: UnsafePointer<millrace_allocator_t>?) -> Int32 {
  guard let allocator else {
    _chosenAllocator = nil
    return MILLRACE_OK.code
  }
  guard allocator.pointee.allocate != nil, allocator.pointee.deallocate != nil else {
    return MILLRACE_INVALID.code
  }
  _chosenAllocator = allocator.pointee
  return MILLRACE_OK.code
}

/// `millrace_destroy`.
@_cdecl("millrace_destroy")
func cDestroy(_ handle: OpaquePointer?) -> Int32 {
  guard let runtime = _runtime(handle) else { return MILLRACE_OK.code }
  guard !runtime.pointee.isStepping else { return MILLRACE_BUSY.code }
  runtime.destroy()
  return MILLRACE_OK.code
}

/// `millrace_set_diagnostic_observer`.
@_cdecl("millrace_set_diagnostic_observer")
func cSetDiagnosticObserver(
  _ handle: OpaquePointer?, _ observer: millrace_diagnostic_fn?,
  _ context: UnsafeMutableRawPointer?
) -> Int32 {
  guard let runtime = _runtime(handle) else { return MILLRACE_INVALID.code }
  guard !runtime.pointee.isStepping else { return MILLRACE_BUSY.code }
  runtime.pointee.diagnose = observer
  runtime.pointee.diagnoseContext = context
  return MILLRACE_OK.code
}

/// `millrace_step`.
@_cdecl("millrace_step")
func cStep(_ handle: OpaquePointer?, _ now: UInt64, _ budget: Int) -> Int {
  guard let runtime = _runtime(handle) else { return 0 }
  // `size_t` arrives as `Int`: 0, and anything above `PTRDIFF_MAX`, mean no limit.
  return runtime.step(to: now, limit: budget <= 0 ? -1 : budget)
}

/// `millrace_next_deadline`.
@_cdecl("millrace_next_deadline")
func cNextDeadline(_ handle: OpaquePointer?) -> UInt64 {
  guard let runtime = _runtime(handle) else { return .max }
  return runtime.pointee.readyHead != _none ? runtime.pointee.now : runtime.earliest ?? .max
}

/// `millrace_now`.
@_cdecl("millrace_now")
func cNow(_ handle: OpaquePointer?) -> UInt64 {
  _runtime(handle)?.pointee.now ?? 0
}

/// `millrace_runtime_stats`.
@_cdecl("millrace_runtime_stats")
func cRuntimeStats(
  _ handle: OpaquePointer?, _ stats: UnsafeMutablePointer<millrace_runtime_stats_t>?
) -> Int32 {
  guard let runtime = _runtime(handle)?.pointee, let stats else { return MILLRACE_INVALID.code }
  stats.pointee = millrace_runtime_stats_t(
    machines: runtime.alive, machines_high_water: runtime.aliveHighWater,
    timers: UInt32(runtime.armed), timers_high_water: runtime.armedHighWater,
    spawns_refused: runtime.spawnsRefused, dispatched: runtime.dispatched,
    effects_started: runtime.started, effects_cancelled: runtime.cancelled,
    effects_overflowed: runtime.overflowed, discarded: runtime.discarded,
    diagnostics: runtime.diagnostics)
  return MILLRACE_OK.code
}

/// `millrace_memory_stats`.
@_cdecl("millrace_memory_stats")
func cMemoryStats(
  _ handle: OpaquePointer?, _ stats: UnsafeMutablePointer<millrace_memory_stats_t>?
) -> Int32 {
  guard let runtime = _runtime(handle)?.pointee, let stats else { return MILLRACE_INVALID.code }
  let counts = runtime.counts
  func bytes<T>(_ type: T.Type, _ count: UInt16) -> Int { MemoryLayout<T>.stride * Int(count) }
  stats.pointee = millrace_memory_stats_t(
    bytes: runtime.bytes, machine_bytes: bytes(_Machine.self, counts.machines),
    input_bytes: bytes(_InputCell.self, counts.inputs),
    effect_bytes: bytes(_EffectCell.self, counts.effects),
    timer_bytes: bytes(UInt16.self, counts.timers), queue_bytes: bytes(_Queue.self, counts.queues),
    observer_bytes: bytes(_Observer.self, counts.observers),
    resolution_bytes: bytes(_Recorded.self, counts.recorded),
    machine_record: MemoryLayout<_Machine>.stride)
  return MILLRACE_OK.code
}
