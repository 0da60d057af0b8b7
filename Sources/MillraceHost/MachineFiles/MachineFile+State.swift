extension MachineFile {
  /// One entry of `"states"` as written: a name (a leaf with no entry or exit effects), or an
  /// object `{"name": s, "initial"?: child, "states"?: [...], "entry"?: [...], "exit"?: [...]}`.
  ///
  /// A state with `states` is compound: a machine in it is always in one of its leaves, and
  /// entering it enters `initial` (which must be one of its direct children; checked when the
  /// file is compiled, like every other reference).
  public struct State: Hashable, Sendable, Decodable, ExpressibleByStringLiteral {
    /// The state's name, unique in the whole file.
    public var name: String
    /// The child entered with this state, for a compound state.
    public var initial: String?
    /// The nested states, in file order; empty for a leaf.
    public var children: [State]
    /// The effects recorded each time the state is entered, in order.
    public var entry: [Effect]
    /// The effects recorded each time the state is exited, in order.
    public var exit: [Effect]

    /// The keys a state object may have.
    static let keys = ["entry", "exit", "initial", "name", "states"]

    /// Creates a state in code.
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

    /// A leaf named by a string literal.
    public init(stringLiteral name: String) {
      self.init(name)
    }

    /// Decodes a name or a state object, refusing unknown keys, bad names, an empty
    /// `states` list and `initial` without `states`.
    public init(from decoder: any Decoder) throws {
      if let name = try? decoder.singleValueContainer().decode(String.self) {
        guard NameRule.isValid(name) else {
          try decoder.report("invalid state name \(name.quoted) (\(NameRule.summary))")
          throw decoder.reported()
        }
        self.init(name)
        return
      }
      let reader = try FieldReader(decoder, known: Self.keys)
      guard reader.isObject else { throw decoder.reported() }
      let name = try reader.name("name", "state", required: true)
      let initial = try reader.name("initial", "state")
      let children = try reader.value("states", as: [Collected<State>].self)
      let entry = try reader.value("entry", as: [Collected<Effect>].self)
      let exit = try reader.value("exit", as: [Collected<Effect>].self)
      if let children, children.isEmpty {
        try reader.report("empty list; a compound state needs at least one child", at: "states")
      }
      if children != nil, !reader.contains("initial") {
        try reader.report("a compound state needs \"initial\", one of its \"states\"", at: "states")
      }
      if reader.contains("initial"), !reader.contains("states") {
        try reader.report("\"initial\" applies only to a state with \"states\"", at: "initial")
      }
      guard let name else { throw decoder.reported() }
      self.init(
        name, initial: initial, children: children?.compactMap(\.value) ?? [],
        entry: entry?.compactMap(\.value) ?? [], exit: exit?.compactMap(\.value) ?? [])
    }

    /// Every state of `states` (the elements of `"states"` by their positions there, which
    /// skip those that failed to decode) whose name an earlier state in the tree already has:
    /// its path and name, in file order.
    static func repeatedNames(_ states: [(position: Int, state: State)]) -> [(
      path: JSONPath, name: String
    )] {
      var seen = Set<String>()
      var repeats: [(path: JSONPath, name: String)] = []
      func visit(_ states: [(position: Int, state: State)], at path: JSONPath) {
        for (position, state) in states {
          let path = path.index(position)
          guard seen.insert(state.name).inserted else {
            repeats.append((path, state.name))
            continue
          }
          visit(state.children.enumerated().map { ($0, $1) }, at: path.key("states"))
        }
      }
      visit(states, at: JSONPath.root.key("states"))
      return repeats
    }
  }
}
