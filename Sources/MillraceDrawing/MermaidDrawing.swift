extension KindDescription {
  /// The kind as a Mermaid state diagram (`stateDiagram-v2`), for Markdown that renders
  /// Mermaid (GitHub, GitLab, mermaid.live).
  ///
  /// Every state is declared in file order, a compound state as a composite
  /// `state on { ... }` holding its children and its own `[*] --> initial`; the kind's
  /// initial state is `[*] --> initial` and a final state `x --> [*]`, both in the block the
  /// state is declared in. Entry and exit effects are description lines of the state
  /// (`session : entry / emit welcome(user)`). Each row is one transition per state it
  /// applies in, labelled UML-style `input [guard] / action<br>action` (actions: the
  /// assignments, `assign attempts = 0`, then the effects, `after 1s send loginOK`); a row
  /// that stays is a loop. A transition is written in the innermost block that holds both
  /// its ends. Rows with `"from": "*"` start at one dashed state `any state`, as in the DOT
  /// drawing, rather than from every state. Context variables are not drawn (Mermaid has no
  /// free-standing note): `dot()` lists them.
  ///
  /// Names that are not plain Mermaid identifiers (`logged-out`, `on:air`, or a keyword
  /// like `end`) are aliased: `state "logged-out" as s1`. Characters Mermaid reads as syntax
  /// in labels (`;`, `:`, `#`, `%`, `<`, `"`) are written as its entity codes (`#59;`).
  /// Output is deterministic (file order throughout).
  public func mermaid() -> String {
    MermaidDrawing(self).text
  }
}

/// The lines of one Mermaid drawing.
private struct MermaidDrawing {
  let kind: KindDescription
  let ids: MermaidIDs
  let final: Set<String>
  /// The rows' transitions by the compound state whose block holds them ("" for the top).
  var edges: [String: [String]] = [:]
  var lines = ["stateDiagram-v2"]

  /// The name the `any state` node is known by (never a state name, which has no
  /// parentheses).
  static let anyState = "(any)"

  init(_ kind: KindDescription) {
    self.kind = kind
    final = Set(kind.final)
    var names = kind.allStates.map(\.name) + (kind.initial.map { [$0] } ?? []) + kind.final
    for row in kind.transitions {
      if case .states(let from) = row.from { names += from }
      if let to = row.to { names.append(to) }
    }
    ids = MermaidIDs(names + [Self.anyState])
    let parents = kind.parents
    let order = kind.stateOrder
    /// The blocks that hold `state`, innermost first, the top ("") last.
    func blocks(_ state: String?) -> [String] {
      var blocks: [String] = []
      var current = state.flatMap { parents[$0] }
      while let block = current {
        blocks.append(block)
        current = parents[block]
      }
      return blocks + [""]
    }
    for row in kind.transitions {
      let label = Self.label(row)
      let sources: [String?] = KindDescription.sourceStates(row.from, order: order) ?? [nil]
      for source in sources {
        let from = ids[source ?? Self.anyState]
        let to = row.to.map { ids[$0] } ?? from
        let outer = Set(blocks(row.to ?? source))
        let block = blocks(source).first(where: outer.contains) ?? ""
        edges[block, default: []].append("\(from) --> \(to) : \(label)")
      }
    }
  }

  var text: String {
    var drawing = self
    drawing.block(kind.states, initial: kind.initial, owner: "", indent: "  ")
    return drawing.lines.joined(separator: "\n") + "\n"
  }

  /// The lines of the top level or of a composite state's body.
  private mutating func block(
    _ states: [KindDescription.State], initial: String?, owner: String, indent: String
  ) {
    for state in states {
      let id = ids[state.name]
      if ids.aliased.contains(state.name) {
        lines.append("\(indent)state \"\(Self.escaped(state.name))\" as \(id)")
      }
      if state.isCompound {
        lines.append("\(indent)state \(id) {")
        block(state.children, initial: state.initial, owner: state.name, indent: indent + "  ")
        lines.append("\(indent)}")
      } else if !ids.aliased.contains(state.name) {
        lines.append(indent + id)
      }
      lines += state.actionLines.map { "\(indent)\(id) : \(Self.escaped($0))" }
    }
    if let initial { lines.append("\(indent)[*] --> \(ids[initial])") }
    lines += states.filter { final.contains($0.name) }.map { "\(indent)\(ids[$0.name]) --> [*]" }
    if owner.isEmpty, kind.transitions.contains(where: { $0.from == .any }) {
      let id = ids[Self.anyState]
      lines += [
        "\(indent)state \"any state\" as \(id)", "\(indent)classDef anyState stroke-dasharray:5 5",
        "\(indent)class \(id) anyState",
      ]
    }
    lines += (edges[owner] ?? []).map { indent + $0 }
  }

  /// `input [guard] / action<br>action`, or the trigger alone.
  private static func label(_ row: KindDescription.Transition) -> String {
    let trigger = escaped(row.trigger)
    guard !row.actionLines.isEmpty else { return trigger }
    return trigger + " / " + row.actionLines.map(escaped).joined(separator: "<br>")
  }

  /// Text Mermaid shows as it is: its syntax characters as entity codes, line ends as spaces.
  static func escaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "#": escaped += "#35;"
      case ";": escaped += "#59;"
      case ":": escaped += "#58;"
      case "%": escaped += "#37;"
      case "<": escaped += "#60;"
      case "\"": escaped += "#34;"
      case "\n", "\r\n", "\r": escaped += " "
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
