import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

/// A runtime as the C API hands it out: `millrace_runtime_t *` is this object, retained
/// through `Unmanaged` from `millrace_create` until `millrace_destroy`.
///
/// Every machine of its runtime is a `CMachine` (only the C API spawns into it), which is what
/// lets `machine(_:)` turn an id back into a typed handle without a dynamic cast.
final class CRuntime {
  /// The core runtime.
  let runtime: Runtime
  /// The caller's buffer everything of this runtime is carved from (`millrace_create_in`),
  /// or nil for the heap.
  let region: OpaquePointer?
  /// Whether `step` is running: its callbacks must not step, destroy the runtime or replace
  /// the diagnostic observer.
  var isStepping = false

  private init(runtime: Runtime, region: OpaquePointer?) {
    self.runtime = runtime
    self.region = region
  }

  /// Makes a runtime in `region` (nil: the heap) and hands it to C in `out`, retained; or
  /// answers `MILLRACE_NO_CAPACITY`, keeping nothing.
  static func create(
    capacity: RuntimeCapacity, region: OpaquePointer?,
    into out: UnsafeMutablePointer<OpaquePointer?>
  ) -> Int32 {
    withMemoryRegion(region) {
      guard Room.has(Room.create), let runtime = Runtime(reserving: capacity) else {
        return MILLRACE_NO_CAPACITY.code
      }
      let made = CRuntime(runtime: runtime, region: region)
      out.pointee = OpaquePointer(Unmanaged.passRetained(made).toOpaque())
      return MILLRACE_OK.code
    }
  }

  /// Runs `body` with this runtime's memory entered: what it allocates comes from the
  /// runtime's buffer, or the heap.
  func withMemory<T>(_ body: () -> T) -> T {
    withMemoryRegion(region, body)
  }

  /// The runtime behind a C pointer, or nil for NULL.
  static func from(_ pointer: OpaquePointer?) -> CRuntime? {
    guard let pointer else { return nil }
    return Unmanaged<CRuntime>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
  }

  /// The live machine `id` names, or nil (never spawned, removed, or a malformed id).
  func machine(_ id: millrace_machine_t) -> MachineHandle<CMachine>? {
    runtime.handle(to: MachineID(c: id), of: CMachine.self)
  }

  /// Runs the runtime up to `now` as `millrace_step` documents: time moves to each deadline
  /// not after `now` in order (or to `now`), the timers due there fire and every queued input
  /// is resolved there, until no deadline up to `now` is left or `budget` inputs were
  /// resolved. Returns the number of inputs resolved.
  func step(to now: UInt64, budget: Int) -> Int {
    var left = budget
    var resolved = 0
    repeat {
      let deadline = runtime.nextDeadline?.nanoseconds ?? .max
      runtime.advance(to: Instant(nanoseconds: deadline < now ? deadline : now))
      let steps = runtime.dispatch(limit: left)
      resolved += steps
      if steps == left { return resolved }
      left -= steps
    } while (runtime.nextDeadline?.nanoseconds ?? .max) <= now
    return resolved
  }
}

extension MachineID {
  /// Decodes a `millrace_machine_t`: the generation in the high 32 bits, the slot in the low.
  init(c id: millrace_machine_t) {
    self.init(
      index: UInt32(truncatingIfNeeded: id), generation: UInt32(truncatingIfNeeded: id >> 32))
  }

  /// The `millrace_machine_t` for this id; never 0, since generations start at 1.
  var c: millrace_machine_t {
    UInt64(generation) << 32 | UInt64(index)
  }
}

extension millrace_result {
  /// The value C callers receive.
  var code: Int32 { Int32(bitPattern: rawValue) }
}

extension PostResult {
  /// The `millrace_result_t` for this outcome.
  var code: Int32 {
    switch self {
    case .accepted: return MILLRACE_OK.code
    case .queueFull: return MILLRACE_QUEUE_FULL.code
    case .noMachine: return MILLRACE_NO_MACHINE.code
    }
  }
}
