import CMillrace

/// A runtime: this header and its pools, carved from one block of memory (`_Layout`) that
/// the caller gives (`millrace_create_in`) or the heap gives once (`millrace_create`).
///
/// Every operation goes through the runtime's pointer (`_RuntimePointer`), never a `mutating`
/// method on the header: resolvers and observers re-enter the runtime through the same
/// pointer while an operation is under way. Operations called from several places are
/// `@inline(never)`: `-Osize` would still copy them into each caller, 1.4 KB of a
/// microcontroller's code (docs/footprint.md).
struct _Runtime {
  var machines: _Pool<_Machine>
  var inputs: _Pool<_InputCell>
  var effects: _Pool<_EffectCell>
  var queues: _Pool<_Queue>
  var observers: _Pool<_Observer>
  /// The armed timers, a binary min-heap of effect cells by deadline.
  let heap: UnsafeMutablePointer<UInt16>
  /// The effects of the resolution under way.
  let recorded: UnsafeMutablePointer<_Recorded>
  let counts: _Counts
  /// The size of the runtime's block.
  let bytes: Int
  var now: UInt64 = 0
  var diagnose: millrace_diagnostic_fn?
  var diagnoseContext: UnsafeMutableRawPointer?
  /// For a runtime on the heap, the allocator to give its memory back to.
  var allocator: millrace_allocator_t?
  var readyHead = _none
  var readyTail = _none
  var armed: UInt16 = 0
  /// The arming order's next number (`_EffectCell.sequence`).
  var sequence: UInt64 = 0
  /// Inside `millrace_step`: its callbacks may not step, destroy or change the diagnostic
  /// observer.
  var isStepping = false

  var alive: UInt32 = 0
  var aliveHighWater: UInt32 = 0
  var armedHighWater: UInt32 = 0
  var spawnsRefused: UInt64 = 0
  var dispatched: UInt64 = 0
  var started: UInt64 = 0
  var cancelled: UInt64 = 0
  var overflowed: UInt64 = 0
  var discarded: UInt64 = 0
  var diagnostics: UInt64 = 0
}

/// The runtime behind a `millrace_runtime_t *`.
typealias _RuntimePointer = UnsafeMutablePointer<_Runtime>

/// How many records each pool of a runtime holds.
struct _Counts {
  var machines: UInt16 = 0
  var inputs: UInt16 = 0
  var effects: UInt16 = 0
  var timers: UInt16 = 0
  var recorded: UInt16 = 0
  var queues: UInt16 = 0
  var observers: UInt16 = 0
  /// The limits for fairness: inputs queued and effects in flight per machine.
  var inputsPerMachine: UInt16 = 0
  var effectsPerMachine: UInt16 = 0

  /// The counts of `capacity` (0 fields take the defaults millrace.h gives), or nil when one
  /// is above `MILLRACE_CAPACITY_MAX`, given or by default.
  init?(_ capacity: millrace_capacity_t) {
    func count(_ value: UInt32, _ fallback: Int) -> UInt16? {
      let count = value == 0 ? fallback : Int(clamping: value)
      return count <= Int(MILLRACE_CAPACITY_MAX) ? UInt16(count) : nil
    }
    // A default product past `Int` (32 bits on a microcontroller) is out of range too.
    func times(_ a: UInt16, _ b: Int) -> Int {
      let (product, overflow) = Int(a).multipliedReportingOverflow(by: b)
      return overflow ? Int.max : product
    }
    guard let machines = count(capacity.machines, 16),
      let inputsPerMachine = count(capacity.inputs_per_machine, 8),
      let effectsPerMachine = count(capacity.effects_per_machine, 4),
      let inputs = count(capacity.inputs, times(machines, Int(inputsPerMachine))),
      let effects = count(capacity.effects, times(machines, Int(effectsPerMachine))),
      let timers = count(capacity.timers, Int(effects)),
      let recorded = count(capacity.effects_per_resolution, 16),
      let queues = count(capacity.queues, times(machines, 2)),
      let observers = count(capacity.observers, Int(machines))
    else { return nil }
    self.machines = machines
    self.inputs = inputs
    self.effects = effects
    self.timers = timers
    self.recorded = recorded
    self.queues = queues
    self.observers = observers
    self.inputsPerMachine = inputsPerMachine
    self.effectsPerMachine = effectsPerMachine
  }
}

/// Where each part of a runtime lies in its block, and the block's size.
struct _Layout {
  let counts: _Counts
  private(set) var bytes = MemoryLayout<_Runtime>.stride
  private(set) var machines = 0
  private(set) var inputs = 0
  private(set) var effects = 0
  private(set) var queues = 0
  private(set) var observers = 0
  private(set) var recorded = 0
  private(set) var heap = 0

  /// The layout of `counts`: the header, then each pool at its alignment.
  init(_ counts: _Counts) {
    self.counts = counts
    machines = carve(_Machine.self, counts.machines)
    inputs = carve(_InputCell.self, counts.inputs)
    effects = carve(_EffectCell.self, counts.effects)
    queues = carve(_Queue.self, counts.queues)
    observers = carve(_Observer.self, counts.observers)
    recorded = carve(_Recorded.self, counts.recorded)
    heap = carve(UInt16.self, counts.timers)
  }

  /// The layout of `capacity`, or nil when it is out of range.
  init?(_ capacity: millrace_capacity_t) {
    guard let counts = _Counts(capacity) else { return nil }
    self.init(counts)
  }

  /// Reserves `count` records of `type` after what is reserved; their offset.
  private mutating func carve<T>(_ type: T.Type, _ count: UInt16) -> Int {
    let alignment = MemoryLayout<T>.alignment
    let offset = (bytes + alignment - 1) & ~(alignment - 1)
    bytes = offset + MemoryLayout<T>.stride * Int(count)
    return offset
  }

  /// What a block must be aligned to.
  static let alignment = 8
}

extension _Runtime {
  /// Makes a runtime laid out by `layout` in `block` (aligned to `_Layout.alignment`, at
  /// least `layout.bytes` long).
  static func make(in block: UnsafeMutableRawPointer, _ layout: _Layout) -> _RuntimePointer {
    func part<T>(_ type: T.Type, _ offset: Int, _ count: UInt16) -> UnsafeMutablePointer<T> {
      (block + offset).bindMemory(to: T.self, capacity: Int(count))
    }
    let counts = layout.counts
    let runtime = block.bindMemory(to: _Runtime.self, capacity: 1)
    runtime.initialize(
      to: _Runtime(
        machines: _Pool(part(_Machine.self, layout.machines, counts.machines), counts.machines),
        inputs: _Pool(part(_InputCell.self, layout.inputs, counts.inputs), counts.inputs),
        effects: _Pool(part(_EffectCell.self, layout.effects, counts.effects), counts.effects),
        queues: _Pool(part(_Queue.self, layout.queues, counts.queues), counts.queues),
        observers: _Pool(
          part(_Observer.self, layout.observers, counts.observers), counts.observers),
        heap: part(UInt16.self, layout.heap, counts.timers),
        recorded: part(_Recorded.self, layout.recorded, counts.recorded),
        counts: counts, bytes: layout.bytes))
    return runtime
  }
}

extension millrace_result_t {
  /// The value a C function returns.
  var code: Int32 { Int32(bitPattern: rawValue) }
}
