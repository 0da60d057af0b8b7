extension KindDefinition {
  /// One effect of a row with every name replaced by its index and durations in nanoseconds.
  public enum Effect: Hashable, Sendable {
    /// Feed the input back to the same machine.
    case send(InputIndex)
    /// Deliver the output.
    case emit(OutputIndex)
    /// Send an input once, after a delay.
    case after(Timer)
    /// Send an input periodically until cancelled.
    case every(Timer)
    /// Cancel every in-flight effect of the machine with this id.
    case cancel(EffectIDIndex)
  }

  /// An `after` or `every` effect.
  public struct Timer: Hashable, Sendable {
    /// The delay (`after`) or period (`every`) in nanoseconds, always positive.
    public let nanoseconds: Int64
    /// The input to send.
    public let input: InputIndex
    /// The queue to run on (0 is `default`).
    public let queue: QueueIndex
    /// The id `cancel` can name, or `nil` for none.
    public let id: EffectIDIndex?
  }
}
