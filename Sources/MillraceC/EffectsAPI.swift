import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

// The effects half of the C API (millrace.h, "Effects"): recording on the buffer a resolver
// received. Each function documents its C contract in the header; these are the
// implementations. None allocates.

extension CEffects {
  /// Records the effect `make` builds on `queue` into the buffer behind `pointer`:
  /// `MILLRACE_INVALID` for a NULL handle or a queue the machine did not declare,
  /// `MILLRACE_NO_CAPACITY` when the buffer is full (the core counts and reports it).
  static func record(
    _ pointer: OpaquePointer?, queue: UInt32 = 0, _ make: (EffectQueue) -> Effect<Int32, Int32>
  ) -> Int32 {
    guard let pointer else { return MILLRACE_INVALID.code }
    let effects = UnsafeMutablePointer<CEffects>(pointer).pointee
    guard queue < effects.queueCount else { return MILLRACE_INVALID.code }
    let effect = make(EffectQueue(UInt8(truncatingIfNeeded: queue)))
    return effects.recorded.pointee.record(effect) ? MILLRACE_OK.code : MILLRACE_NO_CAPACITY.code
  }
}

/// `millrace_effects_send`.
@_cdecl("millrace_effects_send")
func cEffectsSend(_ effects: OpaquePointer?, _ input: Int32) -> Int32 {
  CEffects.record(effects) { _ in .send(input) }
}

/// `millrace_effects_emit`.
@_cdecl("millrace_effects_emit")
func cEffectsEmit(_ effects: OpaquePointer?, _ output: Int32) -> Int32 {
  CEffects.record(effects) { _ in .emit(output) }
}

/// `millrace_effects_after`.
@_cdecl("millrace_effects_after")
func cEffectsAfter(
  _ effects: OpaquePointer?, _ delay: UInt64, _ input: Int32, _ queue: UInt32, _ id: UInt64
) -> Int32 {
  guard let span = TimeSpan(c: delay) else { return MILLRACE_INVALID.code }
  return CEffects.record(effects, queue: queue) {
    .after(span, input, queue: $0, id: EffectID(rawValue: id))
  }
}

/// `millrace_effects_every`.
@_cdecl("millrace_effects_every")
func cEffectsEvery(
  _ effects: OpaquePointer?, _ period: UInt64, _ input: Int32, _ queue: UInt32, _ id: UInt64
) -> Int32 {
  guard period > 0, let span = TimeSpan(c: period) else { return MILLRACE_INVALID.code }
  return CEffects.record(effects, queue: queue) {
    .every(span, input, queue: $0, id: EffectID(rawValue: id))
  }
}

/// `millrace_effects_cancel`.
@_cdecl("millrace_effects_cancel")
func cEffectsCancel(_ effects: OpaquePointer?, _ id: UInt64) -> Int32 {
  guard id != 0 else { return MILLRACE_INVALID.code }
  return CEffects.record(effects) { _ in .cancel(EffectID(rawValue: id)) }
}

/// `millrace_effect_id`: `EffectID(hashing:)` over the name's bytes.
@_cdecl("millrace_effect_id")
func cEffectID(_ name: UnsafePointer<CChar>?, _ length: Int) -> UInt64 {
  guard let name else { return 0 }
  let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
  return EffectID(hashing: UnsafeBufferPointer(start: bytes, count: length)).rawValue
}
