/// What a resolver did with an input.
public enum Resolution: Hashable, Sendable {
  /// A transition exists: the state may have changed and the recorded effects apply.
  case handled
  /// No transition exists: the runtime restores the state, discards the recorded effects and
  /// cancels nothing.
  case rejected
}
