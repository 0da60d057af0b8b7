extension KindDescription {
  /// A state: a leaf, or a compound state with nested states and an initial child; either
  /// may have effects run on entry and on exit.
  public struct State: Hashable, Sendable {
    /// The state's name.
    public var name: String
    /// The child entered with this state, for a compound state.
    public var initial: String?
    /// The nested states, in file order; empty for a leaf.
    public var children: [State]
    /// The effects of entering it, in order.
    public var entry: [Effect]
    /// The effects of leaving it, in order.
    public var exit: [Effect]

    /// A state made in code.
    public init(
      _ name: String, initial: String? = nil, children: [State] = [], entry: [Effect] = [],
      exit: [Effect] = []
    ) {
      self.name = name
      self.initial = initial
      self.children = children
      self.entry = entry
      self.exit = exit
    }

    /// Whether it has nested states.
    public var isCompound: Bool { !children.isEmpty }

    /// This state and every state nested in it, a state before its children.
    public var all: [State] { [self] + children.flatMap(\.all) }

    /// One line per entry effect then per exit effect: `entry / emit welcome(user)`.
    public var actionLines: [String] {
      entry.map { "entry / \($0)" } + exit.map { "exit / \($0)" }
    }
  }
}
