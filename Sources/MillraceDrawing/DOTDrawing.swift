extension KindDescription {
  /// The kind as a Graphviz digraph, for `millctl dot KIND | dot -Tpng`.
  ///
  /// Each leaf state is a box, in file order; an arrow from a small point marks the initial
  /// state. A compound state is a cluster (`subgraph "cluster_<name>"`) labelled with its
  /// name, holding its own start point, which points at its initial child, and its children;
  /// an edge to or from a compound state ends at the cluster's border (`compound=true`,
  /// `lhead` / `ltail`, anchored at the start point). A final state has a double border.
  /// Entry and exit effects are extra lines of a state's label (`entry / emit welcome`).
  ///
  /// Each row is one edge per state it applies in (a `from` list fans out), labelled with its
  /// input (`*` for every input) and guard (`login [pin == 1234]`), then one line per
  /// assignment (`assign attempts = 0`) and per effect
  /// (`after 1s send loginOK (queue request, id req)`). A row that stays is a loop. Rows with
  /// `"from": "*"` are drawn from one dashed node, `any state`, rather than from every
  /// state, so the graph stays readable; a `*` row that stays is a loop on that node.
  /// Context variables and inputs with parameters are listed in a note
  /// (`attempts: int = 0`, `input login(name: string(16), pin: int)`).
  ///
  /// A machine file v1 draws exactly as it did before v2. Output is deterministic (file
  /// order throughout).
  public func dot() -> String {
    DOTDrawing(self).text
  }
}

/// The lines of one DOT drawing; identifiers are quoted names, and the drawing's own nodes
/// have parentheses, which names never have: `"(start)"`, `"(start on)"`, `"(any)"`,
/// `"(context)"`.
private struct DOTDrawing {
  let kind: KindDescription
  let compound: Set<String>
  let parents: [String: String]
  let final: Set<String>
  var lines: [String] = []

  init(_ kind: KindDescription) {
    self.kind = kind
    compound = kind.compoundNames
    parents = kind.parents
    final = Set(kind.final)
  }

  var text: String {
    var drawing = self
    drawing.draw()
    return drawing.lines.joined(separator: "\n") + "\n"
  }

  private mutating func draw() {
    let start = Self.id("(start)")
    lines = [
      "digraph \(Self.id(kind.kind)) {", "  rankdir=LR;", "  node [shape=box, style=rounded];",
    ]
    if !compound.isEmpty { lines.append("  compound=true;") }
    if let initial = kind.initial {
      lines += ["  \(start) [shape=point, width=0.15];", "  " + edge(from: start, to: initial)]
    }
    for state in kind.states { declare(state, indent: "  ") }
    let anyState = Self.id("(any)")
    if kind.transitions.contains(where: { $0.from == .any }) {
      lines.append("  \(anyState) [label=\"any state\", style=\"rounded,dashed\"];")
    }
    let notes =
      kind.context.map(\.description)
      + kind.inputs.filter { !$0.parameters.isEmpty }.map { "input \($0)" }
    if !notes.isEmpty {
      let label = notes.map { Self.escaped($0) + "\\l" }.joined()
      lines.append("  \(Self.id("(context)")) [shape=note, label=\"\(label)\"];")
    }
    let order = kind.stateOrder
    for row in kind.transitions {
      let label = Self.label([row.trigger] + row.actionLines)
      let sources: [String?] = KindDescription.sourceStates(row.from, order: order) ?? [nil]
      for source in sources {
        let target = row.to ?? source
        lines.append("  " + edge(from: source.map(anchor) ?? anyState, source, to: target, label))
      }
    }
    lines.append("}")
  }

  /// A leaf's node line, or a compound state's cluster with its children.
  private mutating func declare(_ state: KindDescription.State, indent: String) {
    let label = ([state.name] + state.actionLines)
    guard state.isCompound else {
      var attributes = state.actionLines.isEmpty ? [] : ["label=\(Self.label(label))"]
      if final.contains(state.name) { attributes.append("peripheries=2") }
      let list = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
      lines.append("\(indent)\(Self.id(state.name))\(list);")
      return
    }
    let inner = indent + "  "
    let start = anchor(state.name)
    lines += [
      "\(indent)subgraph \(Self.id("cluster_" + state.name)) {",
      "\(inner)label=\(Self.label(label));", "\(inner)style=rounded;",
      "\(inner)\(start) [shape=point, width=0.1];",
    ]
    if let initial = state.initial { lines.append(inner + edge(from: start, to: initial)) }
    for child in state.children { declare(child, indent: inner) }
    lines.append("\(indent)}")
  }

  /// The node an edge to or from `state` ends at: the state's own, or its cluster's start
  /// point for a compound state.
  private func anchor(_ state: String) -> String {
    compound.contains(state) ? Self.id("(start \(state))") : Self.id(state)
  }

  /// `tail -> head [label=..., lhead=..., ltail=...];`: `source` and `target` are the states
  /// (nil: the `any state` node); an edge is clipped at a cluster's border unless it stays
  /// in that cluster or is a loop.
  private func edge(
    from tail: String, _ source: String? = nil, to target: String?, _ label: String? = nil
  ) -> String {
    let head = target.map(anchor) ?? tail
    var attributes = label.map { ["label=\($0)"] } ?? []
    if head != tail {
      if let target, compound.contains(target), !isInside(source, target) {
        attributes.append("lhead=\(Self.id("cluster_" + target))")
      }
      if let source, compound.contains(source), !isInside(target, source) {
        attributes.append("ltail=\(Self.id("cluster_" + source))")
      }
    }
    let list = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
    return "\(tail) -> \(head)\(list);"
  }

  /// Whether `state` is `ancestor` or nested in it.
  private func isInside(_ state: String?, _ ancestor: String) -> Bool {
    var current = state
    while let name = current {
      if name == ancestor { return true }
      current = parents[name]
    }
    return false
  }

  /// A quoted DOT identifier.
  static func id(_ name: String) -> String { "\"\(escaped(name))\"" }

  /// A label of lines, quoted: `"login\nassign attempts = 0"`.
  static func label(_ lines: [String]) -> String {
    "\"" + lines.map(escaped).joined(separator: "\\n") + "\""
  }

  /// Text for a DOT string: quotes and backslashes escaped, line ends as `\n`.
  static func escaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "\"", "\\": escaped += "\\\(character)"
      case "\n", "\r\n", "\r": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
