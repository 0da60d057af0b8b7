extension KindDefinition {
  /// One row of a kind's transition table with every name replaced by its index. Rows keep
  /// file order: `rows[i]` is `transitions[i]` of the file.
  public struct Row: Hashable, Sendable {
    /// The input the row handles, or `nil` for every input (`"on": "*"`).
    public let on: InputIndex?
    /// The states the row applies in.
    public let from: StateMatch
    /// The state to move to, or `nil` to stay.
    public let to: StateIndex?
    /// The row's effects: positions in `KindDefinition.effects`, in recording order.
    public let effects: Range<Int32>
    /// Whether the row has a guard (then a row after it may still handle what it matches).
    public let isGuarded: Bool

    /// A row; `isGuarded` when it has a guard.
    public init(
      on: InputIndex?, from: StateMatch, to: StateIndex?, effects: Range<Int32>,
      isGuarded: Bool = false
    ) {
      self.on = on
      self.from = from
      self.to = to
      self.effects = effects
      self.isGuarded = isGuarded
    }
  }

  /// Which states a row applies in, testable without allocating (see `KindDefinition.matches`).
  public enum StateMatch: Hashable, Sendable {
    /// Every state (`"from": "*"`).
    case any
    /// Exactly one state.
    case state(StateIndex)
    /// Two or more states, kept as a bitset in the definition; the payload is the position of
    /// its first word in the definition's bitset storage.
    case set(Int32)
  }
}
