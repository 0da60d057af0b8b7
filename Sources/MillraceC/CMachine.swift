import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

/// What a C machine depends on: its resolver callback, the caller's context pointer, and how
/// many queues it declared (so that effects naming another queue are refused).
struct CResolver {
  /// The `millrace_resolve_fn` given at spawn.
  let resolve: millrace_resolve_fn
  /// The caller's context pointer, passed back to every call.
  let context: UnsafeMutableRawPointer?
  /// How many queues the machine declared (at least 1).
  let queueCount: UInt32
}

/// The effect buffer as the C API lends it (`millrace_effects_t *`): the resolution's
/// `Effects` and the queue count of the machine being resolved. Lives on the stack for the
/// duration of one resolver call.
struct CEffects {
  /// The runtime's buffer for this resolution.
  let recorded: UnsafeMutablePointer<Effects<CMachine>>
  /// How many queues the machine declared.
  let queueCount: UInt32
}

/// The machine type behind every machine of the C API: integer inputs, states and outputs,
/// resolved by a C callback (`millrace_resolve_fn`) carried in the machine's `Extra`.
enum CMachine: Machine {
  typealias Input = Int32
  typealias State = Int32
  typealias Output = Int32
  typealias Extra = CResolver
  /// Queues by position: the layout is given at spawn.
  typealias Queue = EffectQueue

  /// Calls the C resolver with the state and a `CEffects` handle over `effects`.
  static func resolve(
    _ input: Int32, state: inout Int32, extra: CResolver, effects: inout Effects<Self>
  ) -> Resolution {
    withUnsafeMutablePointer(to: &effects) { recorded in
      var handle = CEffects(recorded: recorded, queueCount: extra.queueCount)
      return withUnsafeMutablePointer(to: &handle) { handle in
        let verdict = extra.resolve(extra.context, input, &state, OpaquePointer(handle))
        return verdict == Int32(MILLRACE_HANDLED) ? .handled : .rejected
      }
    }
  }
}
