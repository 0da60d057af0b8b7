/// A kind as its machine file describes it (machine files v1 and v2, DESIGN §4.2), read for
/// drawing: names, nesting, data and rows as written, nothing interned or checked beyond what
/// a drawing needs. `dot()` and `mermaid()` draw it.
///
/// The description comes from a file the daemon already validated (`DESCRIBE kind`, or a
/// machine file), so reading is lenient: unknown keys are ignored and names are not checked
/// against each other. It is strict only about what a drawing cannot do without (`kind`,
/// `transitions`, each row's `on` and `from`, each effect's kind), which are errors.
public struct KindDescription: Hashable, Sendable {
  /// The kind's name.
  public var kind: String
  /// The state a machine starts in, when given.
  public var initial: String?
  /// The top-level states, in file order, each with its nested states. When the file
  /// declares none they are inferred as the daemon infers them, all leaves: the initial
  /// state, the final ones, then every `from` and `to` in file order.
  public var states: [State]
  /// The states that are never left (`"final"`).
  public var final: [String]
  /// The context variables, in file order.
  public var context: [Variable]
  /// The declared inputs, in file order (none when the file declares none).
  public var inputs: [Input]
  /// The rows, in file order.
  public var transitions: [Transition]

  /// A description made in code.
  public init(
    kind: String, initial: String?, states: [State], final: [String] = [],
    context: [Variable] = [], inputs: [Input] = [], transitions: [Transition]
  ) {
    self.kind = kind
    self.initial = initial
    self.states = states
    self.final = final
    self.context = context
    self.inputs = inputs
    self.transitions = transitions
  }

  /// Every state, a compound state before its children, in file order.
  public var allStates: [State] { states.flatMap(\.all) }

  /// The compound state each nested state is directly in, by name: where the name first
  /// appears, in `allStates` order (a name repeated elsewhere, which the daemon refuses,
  /// keeps its first place), so that following parents always ends: a parent's name first
  /// appears before its child's.
  var parents: [String: String] {
    var parents: [String: String] = [:]
    var seen = Set<String>()
    func visit(_ states: [State], in parent: String?) {
      for state in states {
        if seen.insert(state.name).inserted, let parent { parents[state.name] = parent }
        visit(state.children, in: state.name)
      }
    }
    visit(states, in: nil)
    return parents
  }

  /// The position of each state in `allStates`: the order the daemon numbers states in.
  var stateOrder: [String: Int] {
    var order: [String: Int] = [:]
    for (position, state) in allStates.enumerated() where order[state.name] == nil {
      order[state.name] = position
    }
    return order
  }

  /// The states `source` names, one edge each in a drawing: in state order (`order`, from
  /// `stateOrder`, so that a drawing of a v1 file is as it always was), then any name that is
  /// not a state, in file order; nil for `"from": "*"`.
  static func sourceStates(_ source: Source, order: [String: Int]) -> [String]? {
    guard case .states(let names) = source else { return nil }
    return names.enumerated().sorted {
      (order[$0.element] ?? Int.max, $0.offset) < (order[$1.element] ?? Int.max, $1.offset)
    }.map(\.element)
  }

  /// `name(a, b)`, or `name` alone when there are no `parts`: how inputs show their
  /// parameters and messages their arguments.
  static func applied(_ name: String, to parts: [String]) -> String {
    parts.isEmpty ? name : "\(name)(\(parts.joined(separator: ", ")))"
  }

  /// The names of the compound states.
  var compoundNames: Set<String> {
    Set(allStates.filter(\.isCompound).map(\.name))
  }
}
