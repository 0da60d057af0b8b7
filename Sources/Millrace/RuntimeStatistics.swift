/// Counters and high-water marks of a runtime's shared pools.
public struct RuntimeStatistics: Hashable, Sendable {
  /// Machines alive now.
  public var machines: Int = 0
  /// The most machines ever alive at once.
  public var machinesHighWater: Int = 0
  /// Spawns refused, whatever the reason (`SpawnError`).
  public var spawnsRefused: UInt64 = 0
  /// Inputs resolved (handled or rejected).
  public var dispatched: UInt64 = 0
  /// Timers armed now.
  public var timers: Int = 0
  /// The most timers ever armed at once.
  public var timersHighWater: Int = 0
  /// In-flight effects started, across machines (waiting ones count when they start).
  public var effectsStarted: UInt64 = 0
  /// In-flight effects cancelled (by id, by a `latest` queue, or by removal).
  public var effectsCancelled: UInt64 = 0
  /// Queued effect deliveries skipped because their effect was cancelled, and effects dropped
  /// by an `oldest(.discardNew)` queue.
  public var discarded: UInt64 = 0
  /// Effects lost for lack of room: no free effect slot, no free timer, or a full effect buffer.
  public var effectsOverflowed: UInt64 = 0
  /// Diagnostics reported (every overflow of any pool).
  public var diagnostics: UInt64 = 0

  /// All zero.
  public init() {}
}
