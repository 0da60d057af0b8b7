/// The one reply every input yields, delivered to observers after the state changed and
/// before any effect of that input starts.
public enum Reply<Input, State> {
  /// The input was handled; `from` and `to` are the states before and after (possibly equal).
  case handled(Input, from: State, to: State)
  /// No transition exists for the input in `state`; nothing changed.
  case rejected(Input, state: State)

  /// The input this reply answers.
  @inlinable
  public var input: Input {
    switch self {
    case .handled(let input, _, _), .rejected(let input, _): return input
    }
  }

  /// Whether the input was handled.
  @inlinable
  public var isHandled: Bool {
    if case .handled = self { return true }
    return false
  }
}

extension Reply: Equatable where Input: Equatable, State: Equatable {}

extension Reply: Sendable where Input: Sendable, State: Sendable {}
