/// The fixed capacities of a runtime, set when it is created.
///
/// Memory for the runtime (a 56-byte record per machine slot, the timer table, the effect
/// scratch buffer, and `blockBytes` for machine blocks when set) is reserved by
/// `Runtime.init`. A machine's own data (its state, extra, input ring and effect slots) is
/// one block, carved by `spawn` from `blockBytes` when set, else taken from its kind's chunks
/// on the heap. After that, nothing on the hot path allocates, and running out of any of
/// these is reported, never a crash.
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
  /// Bytes reserved at creation for machine blocks; 0 (the default) takes blocks from the
  /// heap at spawn instead. When set, `spawn` never allocates a block and refuses once these
  /// bytes are used up (a removed machine's block is reused by the next spawn of its kind).
  public var blockBytes: Int

  /// Creates capacities; values below 1 are raised to 1, and the per-machine ones are capped
  /// at their maximum.
  public init(
    machines: Int = 64, inputsPerMachine: Int = 64, effectsPerMachine: Int = 16,
    timers: Int = 1024, effectsPerResolution: Int = 16, blockBytes: Int = 0
  ) {
    self.machines = machines < 1 ? 1 : machines
    self.inputsPerMachine = RuntimeCapacity.clamp(inputsPerMachine, to: RuntimeCapacity.maxInputs)
    self.effectsPerMachine = RuntimeCapacity.clamp(
      effectsPerMachine, to: RuntimeCapacity.maxEffects)
    self.timers = timers < 1 ? 1 : timers
    self.effectsPerResolution = effectsPerResolution < 1 ? 1 : effectsPerResolution
    self.blockBytes = blockBytes < 0 ? 0 : blockBytes
  }

  /// The most inputs one machine can have queued.
  public static let maxInputs = Int(UInt16.max)
  /// The most in-flight effects one machine can hold.
  public static let maxEffects = Int(Int16.max)
  /// The most machine kinds (combinations of machine type, queue layout and input capacity)
  /// one runtime can host.
  public static let maxKinds = 1 << 14

  /// `value` raised to 1 and capped at `limit`.
  @usableFromInline
  static func clamp(_ value: Int, to limit: Int) -> Int {
    value < 1 ? 1 : value > limit ? limit : value
  }
}
