/// What an effect queue does when a new effect starts and `max` effects are already in flight.
///
/// The matrix follows Actomaton; Harvest's strategies are special cases
/// (`.latest` is `latest(max: 1)`, `.concat` is `oldest(max: 1, .suspendNew)`).
public enum QueuePolicy: Hashable, Sendable {
  /// The new effect joins those in flight (bounded only by the machine's effect capacity).
  case merge
  /// The oldest effect in flight is cancelled to make room for the new one.
  case latest(max: Int)
  /// The oldest effects keep running; the new one waits or is dropped, per `overflow`.
  case oldest(max: Int, OldestOverflow)

  /// The number of effects that may be in flight at once on such a queue.
  @inlinable
  public var limit: Int {
    switch self {
    case .merge: return .max
    case .latest(let max), .oldest(let max, _): return max < 1 ? 1 : max
    }
  }
}

/// What an `oldest` queue does with an effect that finds the queue full.
public enum OldestOverflow: Hashable, Sendable {
  /// The effect waits, FIFO, and starts when one in flight finishes.
  case suspendNew
  /// The effect is dropped (counted in the machine's statistics as discarded).
  case discardNew
}
