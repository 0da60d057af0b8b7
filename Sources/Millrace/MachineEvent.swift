/// What a machine's observers see: each reply (with the tag of the post that caused it) and
/// each output, in the order they happen.
public enum MachineEvent<Input, State, Output> {
  /// The reply to one input.
  case replied(Reply<Input, State>, tag: PostTag)
  /// An output the machine emitted.
  case emitted(Output)

  /// The reply, if this event is one.
  @inlinable
  public var reply: Reply<Input, State>? {
    if case .replied(let reply, _) = self { return reply }
    return nil
  }

  /// The output, if this event is one.
  @inlinable
  public var output: Output? {
    if case .emitted(let output) = self { return output }
    return nil
  }
}

extension MachineEvent: Sendable where Input: Sendable, State: Sendable, Output: Sendable {}
