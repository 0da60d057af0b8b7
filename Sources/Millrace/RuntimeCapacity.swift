/// The fixed capacities of a runtime, set when it is created.
///
/// Memory for the runtime (machine table, ready ring, timer table, effect scratch buffer) is
/// reserved by `Runtime.init`; memory for one machine (its input ring and effect slots) is
/// reserved by `spawn`. After that, nothing on the hot path allocates, and running out of any
/// of these is reported, never a crash.
public struct RuntimeCapacity: Hashable, Sendable {
  /// How many machines can be alive at once.
  public var machines: Int
  /// How many inputs one machine can have queued (a spawn may choose its own).
  public var inputsPerMachine: Int
  /// How many in-flight effects (`after`, `every`, `run`, running or waiting) one machine holds.
  public var effectsPerMachine: Int
  /// How many timers can be armed across the whole runtime.
  public var timers: Int
  /// How many effects one resolution can record.
  public var effectsPerResolution: Int

  /// Creates capacities; values below 1 are raised to 1.
  public init(
    machines: Int = 64, inputsPerMachine: Int = 64, effectsPerMachine: Int = 16,
    timers: Int = 1024, effectsPerResolution: Int = 16
  ) {
    self.machines = machines < 1 ? 1 : machines
    self.inputsPerMachine = inputsPerMachine < 1 ? 1 : inputsPerMachine
    self.effectsPerMachine = effectsPerMachine < 1 ? 1 : effectsPerMachine
    self.timers = timers < 1 ? 1 : timers
    self.effectsPerResolution = effectsPerResolution < 1 ? 1 : effectsPerResolution
  }
}
