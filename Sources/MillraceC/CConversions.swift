import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

/// Conversions between the C API's plain structs and the core's types. Each returns nil for
/// a value the header declares out of range, which the caller reports as `MILLRACE_INVALID`.

/// A capacity field: 0 takes `fallback`; above `MILLRACE_CAPACITY_MAX` is refused.
func capacityValue(_ value: UInt32, default fallback: Int) -> Int? {
  if value == 0 { return fallback }
  return value <= MILLRACE_CAPACITY_MAX ? Int(value) : nil
}

/// `a × b`, or nil where it does not fit an `Int` (32 bits on a microcontroller).
func checkedProduct(_ a: Int, _ b: Int) -> Int? {
  let (value, overflow) = a.multipliedReportingOverflow(by: b)
  return overflow ? nil : value
}

extension RuntimeCapacity {
  /// Capacities from a `millrace_capacity_t` (0 fields take the core's defaults).
  init?(c given: millrace_capacity_t) {
    let defaults = RuntimeCapacity()
    guard let machines = capacityValue(given.machines, default: defaults.machines),
      let inputs = capacityValue(given.inputs_per_machine, default: defaults.inputsPerMachine),
      inputs <= RuntimeCapacity.maxInputs,
      let effects = capacityValue(given.effects_per_machine, default: defaults.effectsPerMachine),
      effects <= RuntimeCapacity.maxEffects,
      let timers = capacityValue(given.timers, default: defaults.timers),
      let perResolution = capacityValue(
        given.effects_per_resolution, default: defaults.effectsPerResolution),
      let inputProduct = checkedProduct(machines, inputs),
      let effectProduct = checkedProduct(machines, effects),
      let inputPool = capacityValue(given.inputs, default: inputProduct),
      let effectPool = capacityValue(given.effects, default: effectProduct),
      // `uint32_t` beyond `Int.max` on a 32-bit target.
      let blockBytes = Int(exactly: given.block_bytes)
    else { return nil }
    self.init(
      machines: machines, inputsPerMachine: inputs, effectsPerMachine: effects, timers: timers,
      effectsPerResolution: perResolution, blockBytes: blockBytes,
      inputs: inputPool, effects: effectPool)
  }
}

extension QueuePolicy {
  /// The policy of a `millrace_queue_t`, or nil for an unknown policy or a bad maximum.
  init?(c queue: millrace_queue_t) {
    let bounded = queue.max >= 1 && queue.max <= MILLRACE_CAPACITY_MAX
    // Converted only in range: a `uint32_t` from 2^31 up does not fit a 32-bit `Int`.
    let max = bounded ? Int(queue.max) : 0
    switch queue.policy {
    case Int32(MILLRACE_MERGE.rawValue): self = .merge
    case Int32(MILLRACE_LATEST.rawValue) where bounded: self = .latest(max: max)
    case Int32(MILLRACE_OLDEST_SUSPEND.rawValue) where bounded:
      self = .oldest(max: max, .suspendNew)
    case Int32(MILLRACE_OLDEST_DISCARD.rawValue) where bounded:
      self = .oldest(max: max, .discardNew)
    default: return nil
    }
  }
}

extension TimeSpan {
  /// A span from unsigned nanoseconds, or nil beyond `Int64.max`.
  init?(c nanoseconds: UInt64) {
    guard nanoseconds <= UInt64(Int64.max) else { return nil }
    self.init(nanoseconds: Int64(nanoseconds))
  }
}

extension millrace_event_t {
  /// The C form of one reply or output.
  init(_ event: MachineEvent<Int32, Int32, Int32>) {
    switch event {
    case .replied(.handled(let input, let from, let to), let tag):
      self.init(
        kind: Int32(MILLRACE_EVENT_HANDLED.rawValue), input: input, from: from, to: to,
        output: 0, tag: tag.rawValue)
    case .replied(.rejected(let input, let state), let tag):
      self.init(
        kind: Int32(MILLRACE_EVENT_REJECTED.rawValue), input: input, from: state, to: state,
        output: 0, tag: tag.rawValue)
    case .emitted(let output):
      self.init(
        kind: Int32(MILLRACE_EVENT_OUTPUT.rawValue), input: 0, from: 0, to: 0, output: output,
        tag: 0)
    }
  }
}

extension millrace_diagnostic_t {
  /// The C form of a diagnostic.
  init(_ diagnostic: Diagnostic) {
    switch diagnostic {
    case .inputQueueFull(let id, let source):
      let code: millrace_input_source
      switch source {
      case .send: code = MILLRACE_SOURCE_SEND
      case .timer: code = MILLRACE_SOURCE_TIMER
      case .job: code = MILLRACE_SOURCE_JOB
      case .route: code = MILLRACE_SOURCE_ROUTE
      }
      self.init(
        kind: Int32(MILLRACE_DIAG_INPUT_QUEUE_FULL.rawValue), source: Int32(code.rawValue),
        dropped: 0, machine: id.c)
    case .effectSlotsFull(let id):
      self.init(
        kind: Int32(MILLRACE_DIAG_EFFECT_SLOTS_FULL.rawValue), source: 0, dropped: 0,
        machine: id.c)
    case .timersFull(let id):
      self.init(
        kind: Int32(MILLRACE_DIAG_TIMERS_FULL.rawValue), source: 0, dropped: 0, machine: id.c)
    case .effectBufferFull(let id, let dropped):
      self.init(
        kind: Int32(MILLRACE_DIAG_EFFECT_BUFFER_FULL.rawValue), source: 0,
        dropped: UInt32(clamping: dropped), machine: id.c)
    }
  }
}

extension millrace_machine_stats_t {
  /// The C form of a machine's statistics.
  init(_ stats: MachineStatistics) {
    self.init(
      posted: stats.posted, handled: stats.handled, rejected: stats.rejected,
      dropped: stats.dropped, queued: UInt32(clamping: stats.queued),
      queue_high_water: UInt32(clamping: stats.queueHighWater),
      effects_high_water: UInt32(clamping: stats.effectsHighWater))
  }
}

extension millrace_runtime_stats_t {
  /// The C form of a runtime's statistics.
  init(_ stats: RuntimeStatistics) {
    self.init(
      machines: UInt32(clamping: stats.machines),
      machines_high_water: UInt32(clamping: stats.machinesHighWater),
      timers: UInt32(clamping: stats.timers),
      timers_high_water: UInt32(clamping: stats.timersHighWater),
      spawns_refused: stats.spawnsRefused, dispatched: stats.dispatched,
      effects_started: stats.effectsStarted, effects_cancelled: stats.effectsCancelled,
      effects_overflowed: stats.effectsOverflowed, discarded: stats.discarded,
      diagnostics: stats.diagnostics)
  }
}
