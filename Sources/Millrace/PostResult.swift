/// The outcome of posting an input; overflow is never silent, so callers must look at it.
public enum PostResult: Hashable, Sendable {
  /// The input is queued and will be resolved, and replied to, in arrival order.
  case accepted
  /// The machine's input queue is full; nothing changed (counted as dropped).
  case queueFull
  /// The machine does not exist (never spawned, or removed).
  case noMachine
}
