import CMillrace

// The effects half of the C API (millrace.h, "Effects"): recording on the handle a resolver
// received. The header documents each function's contract; these are the implementations.

/// Records `effect` on `handle`: `MILLRACE_INVALID` for a NULL handle.
func _record(_ handle: OpaquePointer?, _ effect: _Recorded) -> Int32 {
  guard let handle else { return MILLRACE_INVALID.code }
  return UnsafeMutablePointer<_Handle>(handle).record(effect)
}

/// Records a timer: `MILLRACE_INVALID` for a span beyond `INT64_MAX`, a zero period, or a
/// queue the machine lacks.
func _recordTimer(
  _ handle: OpaquePointer?, _ kind: UInt8, _ span: UInt64, _ input: Int32, _ queue: UInt32,
  _ id: UInt64
) -> Int32 {
  guard span <= UInt64(Int64.max), span > 0 || kind == _Recorded.after, queue < MILLRACE_QUEUES_MAX
  else { return MILLRACE_INVALID.code }
  return _record(
    handle, _Recorded(span: span, id: id, value: input, kind: kind, queue: UInt8(queue)))
}

/// `millrace_effects_send`.
@_cdecl("millrace_effects_send")
func cEffectsSend(_ effects: OpaquePointer?, _ input: Int32) -> Int32 {
  _record(effects, _Recorded(value: input, kind: _Recorded.send))
}

/// `millrace_effects_emit`.
@_cdecl("millrace_effects_emit")
func cEffectsEmit(_ effects: OpaquePointer?, _ output: Int32) -> Int32 {
  _record(effects, _Recorded(value: output, kind: _Recorded.emit))
}

/// `millrace_effects_after`.
@_cdecl("millrace_effects_after")
func cEffectsAfter(
  _ effects: OpaquePointer?, _ delay: UInt64, _ input: Int32, _ queue: UInt32, _ id: UInt64
) -> Int32 {
  _recordTimer(effects, _Recorded.after, delay, input, queue, id)
}

/// `millrace_effects_every`.
@_cdecl("millrace_effects_every")
func cEffectsEvery(
  _ effects: OpaquePointer?, _ period: UInt64, _ input: Int32, _ queue: UInt32, _ id: UInt64
) -> Int32 {
  _recordTimer(effects, _Recorded.every, period, input, queue, id)
}

/// `millrace_effects_cancel`.
@_cdecl("millrace_effects_cancel")
func cEffectsCancel(_ effects: OpaquePointer?, _ id: UInt64) -> Int32 {
  guard id != 0 else { return MILLRACE_INVALID.code }
  return _record(effects, _Recorded(id: id, kind: _Recorded.cancel))
}

/// `millrace_effect_id`: FNV-1a of the name's bytes, never 0, as the Swift core's `EffectID`
/// and the daemon's machine files hash names.
@_cdecl("millrace_effect_id")
func cEffectID(_ name: UnsafePointer<CChar>?, _ length: UInt) -> UInt64 {
  guard let name else { return 0 }
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  // `size_t` taken as `UInt`: as an `Int`, a length above `Int.max` is a negative range, a
  // trap; here it reads as far as a C loop over the name would.
  var byte = UnsafeRawPointer(name)
  for _ in 0..<length {
    hash = (hash ^ UInt64(byte.load(as: UInt8.self))) &* 0x0000_0100_0000_01b3
    byte += 1
  }
  return hash == 0 ? 1 : hash
}
