/// Counters and high-water marks of a runtime's shared pools.
public struct RuntimeStatistics: Hashable, Sendable {
  /// Machines alive now.
  public var machines: Int = 0
  /// The most machines ever alive at once.
  public var machinesHighWater: Int = 0
  /// Spawns refused because every machine slot was taken.
  public var spawnsRefused: UInt64 = 0
  /// Inputs resolved (handled or rejected).
  public var dispatched: UInt64 = 0
  /// Timers armed now.
  public var timers: Int = 0
  /// The most timers ever armed at once.
  public var timersHighWater: Int = 0
  /// Diagnostics reported (every overflow of any pool).
  public var diagnostics: UInt64 = 0

  /// All zero.
  public init() {}
}
