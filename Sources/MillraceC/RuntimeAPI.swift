import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

// The runtime half of the C API (millrace.h, "Runtime"): creation, destruction, stepping,
// time, statistics and the diagnostic observer. Each function documents its C contract in
// the header; these are the implementations.

/// `millrace_create`: a runtime retained for the caller until `millrace_destroy`.
@_cdecl("millrace_create")
func cCreate(
  _ capacity: UnsafePointer<millrace_capacity_t>?, _ runtime: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let runtime, let fixed = RuntimeCapacity(c: capacity?.pointee ?? millrace_capacity_t())
  else { return MILLRACE_INVALID.code }
  installHeap()
  return CRuntime.create(capacity: fixed, region: nil, into: runtime)
}

/// `millrace_destroy`: releases the runtime, which removes every machine, then gives its
/// buffer back when it has one.
@_cdecl("millrace_destroy")
func cDestroy(_ pointer: OpaquePointer?) -> Int32 {
  guard let pointer else { return MILLRACE_OK.code }
  // Not retained here: the runtime must be gone (its memory back in its buffer) before the
  // buffer is given back.
  let owner = Unmanaged<CRuntime>.fromOpaque(UnsafeRawPointer(pointer))
  let (isStepping, region) = owner._withUnsafeGuaranteedRef { ($0.isStepping, $0.region) }
  guard !isStepping else { return MILLRACE_BUSY.code }
  withMemoryRegion(region) { owner.release() }
  releaseRegion(region)
  return MILLRACE_OK.code
}

/// `millrace_set_diagnostic_observer`: replaces the runtime's `onDiagnostic`.
@_cdecl("millrace_set_diagnostic_observer")
func cSetDiagnosticObserver(
  _ pointer: OpaquePointer?,
  _ observer: millrace_diagnostic_fn?,
  _ context: UnsafeMutableRawPointer?
) -> Int32 {
  guard let owner = CRuntime.from(pointer) else { return MILLRACE_INVALID.code }
  guard !owner.isStepping else { return MILLRACE_BUSY.code }
  return owner.withMemory {
    guard let observer else {
      owner.runtime.onDiagnostic = nil
      return MILLRACE_OK.code
    }
    guard Room.has(Room.observer) else { return MILLRACE_NO_CAPACITY.code }
    owner.runtime.onDiagnostic = { diagnostic in
      var event = millrace_diagnostic_t(diagnostic)
      observer(context, &event)
    }
    return MILLRACE_OK.code
  }
}

/// `millrace_step`: `CRuntime.step`, guarded against re-entry from callbacks. A `size_t`
/// budget arrives as `Int`: 0, and values beyond `Int.max` (negative here), mean no limit.
@_cdecl("millrace_step")
func cStep(_ pointer: OpaquePointer?, _ now: UInt64, _ budget: Int) -> Int {
  guard let owner = CRuntime.from(pointer), !owner.isStepping else { return 0 }
  owner.isStepping = true
  defer { owner.isStepping = false }
  return owner.withMemory { owner.step(to: now, budget: budget <= 0 ? .max : budget) }
}

/// `millrace_next_deadline`: now when inputs wait, else the earliest timer deadline.
@_cdecl("millrace_next_deadline")
func cNextDeadline(_ pointer: OpaquePointer?) -> UInt64 {
  guard let runtime = CRuntime.from(pointer)?.runtime else { return MILLRACE_NO_DEADLINE }
  if runtime.hasPendingInputs { return runtime.now.nanoseconds }
  return runtime.nextDeadline?.nanoseconds ?? MILLRACE_NO_DEADLINE
}

/// `millrace_now`: the runtime's current time.
@_cdecl("millrace_now")
func cNow(_ pointer: OpaquePointer?) -> UInt64 {
  CRuntime.from(pointer)?.runtime.now.nanoseconds ?? 0
}

/// `millrace_runtime_stats`: a snapshot of the runtime's counters.
@_cdecl("millrace_runtime_stats")
func cRuntimeStats(
  _ pointer: OpaquePointer?, _ stats: UnsafeMutablePointer<millrace_runtime_stats_t>?
) -> Int32 {
  guard let owner = CRuntime.from(pointer), let stats else { return MILLRACE_INVALID.code }
  stats.pointee = millrace_runtime_stats_t(owner.runtime.statistics)
  return MILLRACE_OK.code
}
