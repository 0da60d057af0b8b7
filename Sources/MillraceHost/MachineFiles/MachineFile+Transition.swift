extension MachineFile {
  /// One row of the transition table as written:
  /// `{"on": input|"*", "from": state|[states]|"*", "to"?: state, "guard"?: expression,
  /// "assign"?: {variable: expression}, "effects"?: [...]}`.
  public struct Transition: Hashable, Sendable {
    /// The input the row handles.
    public var on: InputPattern
    /// The states the row applies in.
    public var from: StatePattern
    /// The state to move to, or `nil` to stay in the current state.
    public var to: String?
    /// The effects to record, in order.
    public var effects: [Effect]
    /// The condition (a bool expression) without which the row does not apply, or nil.
    public var `guard`: String?
    /// The values the row gives context variables (expressions, all evaluated before any is
    /// stored), by variable name.
    public var assign: [String: String]

    /// The keys a transition object may have.
    static let keys = ["assign", "effects", "from", "guard", "on", "to"]

    /// Creates a row in code.
    public init(
      on: InputPattern, from: StatePattern, to: String? = nil, guard condition: String? = nil,
      assign: [String: String] = [:], effects: [Effect] = []
    ) {
      self.on = on
      self.from = from
      self.to = to
      self.guard = condition
      self.assign = assign
      self.effects = effects
    }

    /// Reads a row, refusing unknown keys, bad names and an empty `from` list.
    init?(_ field: JSONField) {
      let reader = FieldReader(field, known: Self.keys)
      let on = reader.name("on", "input", required: true, wildcard: true)
      let from = Self.statePattern(reader)
      to = reader.name("to", "state")
      effects = reader.list("effects", Effect.init)?.compactMap(\.self) ?? []
      self.guard = reader.string("guard")
      assign = reader.stringMembers("assign") ?? [:]
      guard let on, let from else { return nil }
      self.on = on == "*" ? .any : .input(on)
      self.from = from
    }

    /// `from`: a state, `"*"`, or a non-empty list of states.
    private static func statePattern(_ reader: FieldReader) -> StatePattern? {
      if !reader.contains("from") || reader.isString("from") {
        let name = reader.name("from", "state", required: true, wildcard: true)
        return name.map { $0 == "*" ? .any : .state($0) }
      }
      guard reader.isList("from") else {
        reader.report("expected a state, a list of states, or \"*\"", at: "from")
        return nil
      }
      guard let names = reader.names("from", "state") else { return nil }
      if names.isEmpty {
        reader.report("empty list; write \"*\" for every state", at: "from")
        return nil
      }
      return .states(names)
    }
  }

  /// Which inputs a row handles.
  public enum InputPattern: Hashable, Sendable {
    /// Every input (`"on": "*"`).
    case any
    /// One input, by name.
    case input(String)
  }

  /// Which states a row applies in.
  public enum StatePattern: Hashable, Sendable {
    /// Every state (`"from": "*"`).
    case any
    /// One state, written as a string.
    case state(String)
    /// The states of a list, none repeated, never empty.
    case states([String])

    /// The states named, in file order (none for `any`).
    public var names: [String] {
      switch self {
      case .any: []
      case .state(let name): [name]
      case .states(let names): names
      }
    }
  }
}
