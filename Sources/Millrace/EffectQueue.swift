/// Selects one of a machine's effect queues by its position in the machine's queue layout.
///
/// Queue 0 is the default queue, used by effects that name none. A machine declares its
/// queues as an array of `QueuePolicy` (see `Machine.queues`); an effect naming a queue the
/// machine did not declare runs on the default queue.
public struct EffectQueue: Hashable, Sendable {
  /// The position of the queue in the machine's layout.
  public var index: UInt8

  /// Selects the queue at `index`.
  @inlinable
  public init(_ index: UInt8) {
    self.index = index
  }

  /// The default queue (index 0).
  public static let `default` = EffectQueue(0)
}
