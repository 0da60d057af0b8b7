import MillraceDrawing

extension MachineFile {
  /// One entry of `"states"` as written: a name (a leaf with no entry or exit effects), or an
  /// object `{"name": s, "initial"?: child, "states"?: [...], "entry"?: [...], "exit"?: [...]}`.
  ///
  /// A state with `states` is compound: a machine in it is always in one of its leaves, and
  /// entering it enters `initial` (which must be one of its direct children; checked when the
  /// file is compiled, like every other reference).
  public struct State: Hashable, Sendable, ExpressibleByStringLiteral {
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

    /// Reads a name or a state object, refusing unknown keys, bad names, an empty
    /// `states` list and `initial` without `states`.
    init?(_ field: JSONField) {
      if case .string(let name) = field.value {
        guard NameRule.isValid(name) else {
          field.report("invalid state name \(name.quoted) (\(NameRule.summary))")
          return nil
        }
        self.init(name)
        return
      }
      let reader = FieldReader(field, known: Self.keys)
      guard reader.isObject else { return nil }
      let name = reader.name("name", "state", required: true)
      let initial = reader.name("initial", "state")
      let children = reader.list("states", State.init)
      let entry = reader.list("entry", Effect.init)
      let exit = reader.list("exit", Effect.init)
      if let children, children.isEmpty {
        reader.report("empty list; a compound state needs at least one child", at: "states")
      }
      if children != nil, !reader.contains("initial") {
        reader.report("a compound state needs \"initial\", one of its \"states\"", at: "states")
      }
      if reader.contains("initial"), !reader.contains("states") {
        reader.report("\"initial\" applies only to a state with \"states\"", at: "initial")
      }
      guard let name else { return nil }
      self.init(
        name, initial: initial, children: children?.compactMap(\.self) ?? [],
        entry: entry?.compactMap(\.self) ?? [], exit: exit?.compactMap(\.self) ?? [])
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
