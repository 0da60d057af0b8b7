extension KindDefinition {
  /// What an effect queue does when a new effect starts and `max` effects are already in
  /// flight; the same matrix as the core's `QueuePolicy` (DESIGN §2.3), case for case.
  public enum QueuePolicy: Hashable, Sendable {
    /// The new effect joins those in flight (bounded only by the machine's effect capacity).
    case merge
    /// The oldest effect in flight is cancelled to make room (`max` ≥ 1).
    case latest(max: Int)
    /// The effects in flight keep running; the new one waits or is dropped (`max` ≥ 1).
    case oldest(max: Int, Overflow)
  }

  /// What an `oldest` queue does with an effect that finds it full.
  public enum Overflow: Hashable, Sendable {
    /// The effect waits, FIFO, and starts when one in flight finishes (`"suspend"`).
    case suspendNew
    /// The effect is dropped (`"discard"`).
    case discardNew
  }
}
