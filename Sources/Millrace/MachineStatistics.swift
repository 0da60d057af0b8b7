/// Counters and high-water marks of one machine; cheap enough to be always on.
public struct MachineStatistics: Hashable, Sendable {
  /// Inputs accepted into the machine's queue, from any source.
  public var posted: UInt64 = 0
  /// Inputs resolved as handled.
  public var handled: UInt64 = 0
  /// Inputs resolved as rejected.
  public var rejected: UInt64 = 0
  /// Inputs refused because the queue was full, from any source.
  public var dropped: UInt64 = 0
  /// Queued effect deliveries skipped because their effect was cancelled, and effects dropped
  /// by an `oldest(.discardNew)` queue.
  public var discarded: UInt64 = 0
  /// In-flight effects started (waiting ones count when they start).
  public var effectsStarted: UInt64 = 0
  /// In-flight effects cancelled (by id, by a `latest` queue, or by removal).
  public var effectsCancelled: UInt64 = 0
  /// Effects lost for lack of room: no free effect slot, no free timer, or a full effect buffer.
  public var effectsOverflowed: UInt64 = 0
  /// Inputs queued right now.
  public var queued: Int = 0
  /// The most inputs ever queued at once.
  public var queueHighWater: Int = 0
  /// The most in-flight effects ever held at once.
  public var effectsHighWater: Int = 0

  /// All zero.
  public init() {}
}
