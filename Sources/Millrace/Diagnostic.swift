/// Something the runtime had to drop for lack of room; reported to `Runtime.onDiagnostic` and
/// counted, so that overflow is never silent.
public enum Diagnostic: Hashable, Sendable {
  /// An input produced inside the runtime found the machine's queue full and was dropped.
  case inputQueueFull(MachineID, InputSource)
  /// An in-flight effect found no free effect slot in its machine and was not started.
  case effectSlotsFull(MachineID)
  /// A timer effect found the runtime's timer registry full and was not started.
  case timersFull(MachineID)
  /// A resolution recorded more effects than `effectsPerResolution`; the extra were dropped.
  case effectBufferFull(MachineID, dropped: Int)
}

/// Where an input produced inside the runtime came from.
public enum InputSource: Hashable, Sendable {
  /// A `send` effect.
  case send
  /// An `after` or `every` timer.
  case timer
  /// A `run` job's result.
  case job
  /// An output routed by wiring (outward, redirect).
  case route
}
