/// Counters and high-water marks of one machine; cheap enough to be always on.
///
/// The machine keeps them as 32-bit counters (in its record and its rare counts), so counts wrap
/// modulo 2³². Counts of effects (started, cancelled, discarded, overflowed) are kept per
/// runtime, in `RuntimeStatistics`.
public struct MachineStatistics: Hashable, Sendable {
  /// Inputs accepted into the machine's queue, from any source.
  public var posted: UInt32 = 0
  /// Inputs resolved as handled.
  public var handled: UInt32 = 0
  /// Inputs resolved as rejected.
  public var rejected: UInt32 = 0
  /// Inputs refused because the queue was full, from any source.
  public var dropped: UInt32 = 0
  /// Inputs queued right now.
  public var queued: Int = 0
  /// The most inputs ever queued at once.
  public var queueHighWater: Int = 0
  /// The most in-flight effects ever held at once.
  public var effectsHighWater: Int = 0

  /// All zero.
  public init() {}

  /// The statistics kept in `record` and its `rare` counts.
  @usableFromInline
  init(_ record: _MachineRecord, _ rare: _RareCounts) {
    posted = record.posted
    handled = record.handled
    rejected = rare.rejected
    dropped = rare.dropped
    queued = Int(record.inputCount)
    queueHighWater = Int(record.queueHighWater)
    effectsHighWater = Int(record.effectsHighWater)
  }
}
