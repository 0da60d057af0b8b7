/// The fixed capacities of a runtime, set when it is created.
///
/// A machine costs its 64-byte record and its block (its state, extra and the lists of its
/// bounded effect queues): in the record when it fits in 16 bytes, else taken at `spawn` from
/// `blockBytes` when set, or from its variant's chunks on the heap. Its queued inputs and
/// in-flight effects are cells of runtime-wide pools (`inputs`, `effects`), one pool per cell
/// size, drawn as needed with a per-machine limit for fairness (`inputsPerMachine`,
/// `effectsPerMachine`): an idle machine holds none.
/// One exception: when a machine's input type fits in the padding of its block, the block
/// keeps a slot for one input, and an untagged input posted or sent into its empty queue
/// waits there instead of in a cell, for as long as it is the only one queued.
/// Every table and pool is reserved when the runtime is created (a pool of a new cell size
/// when the first variant needing it is spawned) and first written as it fills, so on a system
/// with virtual memory it costs what it holds, not what it could hold. After that, nothing on
/// the hot path allocates, and running out of any of these is reported, never a crash.
public struct RuntimeCapacity: Hashable, Sendable {
  /// How many machines can be alive at once.
  public var machines: Int
  /// How many inputs one machine can have queued (a spawn may choose its own); at most
  /// 65,535.
  public var inputsPerMachine: Int
  /// How many in-flight effects (`after`, `every`, `run`, running or waiting) one machine
  /// holds; at most 32,767.
  public var effectsPerMachine: Int
  /// How many timers can be armed across the whole runtime.
  public var timers: Int
  /// How many effects one resolution can record.
  public var effectsPerResolution: Int
  /// Bytes reserved at creation for the machine blocks that do not fit in their records; 0
  /// (the default) takes those blocks from the heap at spawn instead. When set, `spawn` never
  /// allocates a block and refuses once these bytes are used up (a removed machine's block is
  /// reused by the next spawn of its variant).
  public var blockBytes: Int
  /// How many inputs can wait in pool cells at once across all machines (per pool: machines
  /// whose queued inputs have the same cell size share one). An input alone in its
  /// machine's queue may wait in the machine's block and take no cell.
  public var inputs: Int
  /// How many effects can be in flight at once across all machines (per pool, like
  /// `inputs`).
  public var effects: Int

  /// Creates capacities; values below 1 are raised to 1, and the per-machine ones are capped
  /// at their maximum. `inputs` and `effects` default to enough for every machine to fill its
  /// own limit (at most `maxPoolCells`).
  public init(
    machines: Int = 64, inputsPerMachine: Int = 64, effectsPerMachine: Int = 16,
    timers: Int = 1024, effectsPerResolution: Int = 16, blockBytes: Int = 0,
    inputs: Int? = nil, effects: Int? = nil
  ) {
    self.machines = machines < 1 ? 1 : machines
    self.inputsPerMachine = RuntimeCapacity._clamp(inputsPerMachine, to: RuntimeCapacity.maxInputs)
    self.effectsPerMachine = RuntimeCapacity._clamp(
      effectsPerMachine, to: RuntimeCapacity.maxEffects)
    self.timers = timers < 1 ? 1 : timers
    self.effectsPerResolution = effectsPerResolution < 1 ? 1 : effectsPerResolution
    self.blockBytes = blockBytes < 0 ? 0 : blockBytes
    self.inputs = RuntimeCapacity._clamp(
      inputs ?? RuntimeCapacity.product(self.machines, self.inputsPerMachine),
      to: RuntimeCapacity.maxPoolCells)
    self.effects = RuntimeCapacity._clamp(
      effects ?? RuntimeCapacity.product(self.machines, self.effectsPerMachine),
      to: RuntimeCapacity.maxPoolCells)
  }

  /// The most inputs one machine can have queued.
  public static let maxInputs = Int(UInt16.max)
  /// The most in-flight effects one machine can hold.
  public static let maxEffects = Int(Int16.max)
  /// The most cells of one input or effect pool (`inputs`, `effects`).
  public static let maxPoolCells = 1 << 26
  /// The most machine variants (combinations of machine type, queue layout and effect capacity)
  /// one runtime can host.
  public static let maxVariants = 1 << 14

  /// `a × b`, or `Int.max` when that overflows.
  static func product(_ a: Int, _ b: Int) -> Int {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    return overflow ? Int.max : product
  }

  /// `value` raised to 1 and capped at `limit`.
  @usableFromInline
  static func _clamp(_ value: Int, to limit: Int) -> Int {
    value < 1 ? 1 : value > limit ? limit : value
  }
}
