extension KindDefinition {
  /// The transition table as a Graphviz digraph, for `millraced --dot KIND | dot -Tpng`.
  ///
  /// Each state is a node, in index order; an arrow from a small point marks the initial
  /// state. Each row is one edge per state it applies in (a `from` list fans out), labelled
  /// with its input (`*` for every input) and then one line per effect, e.g.
  /// `after 1s send loginOK (queue request, id req)`. A row that stays is a loop. Rows with
  /// `"from": "*"` are drawn from one dashed node, `any state`, rather than from every state,
  /// so the graph stays readable; a `*` row that stays is a loop on that node. Output is
  /// deterministic (rows in file order).
  public func dot() -> String {
    let start = Self.dotID("(start)")
    let anyState = Self.dotID("(any)")
    var lines = [
      "digraph \(Self.dotID(kind)) {",
      "  rankdir=LR;",
      "  node [shape=box, style=rounded];",
      "  \(start) [shape=point, width=0.15];",
      "  \(start) -> \(Self.dotID(states[initial]));",
    ]
    lines += states.names.map { "  \(Self.dotID($0));" }
    if rows.contains(where: { $0.from == .any }) {
      lines.append("  \(anyState) [label=\"any state\", style=\"rounded,dashed\"];")
    }
    for row in rows {
      let label = ([row.on.map { inputs[$0] } ?? "*"] + effects(of: row).map(describe))
        .map { $0.replacingQuotes() }.joined(separator: "\\n")
      let sources =
        row.from == .any ? [anyState] : states(in: row.from).map { Self.dotID(states[$0]) }
      for source in sources {
        let target = row.to.map { Self.dotID(states[$0]) } ?? source
        lines.append("  \(source) -> \(target) [label=\"\(label)\"];")
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// One effect in words, with names: `send x`, `emit x`, `cancel x`,
  /// `after 1s send x (queue q, id i)`, `every 250ms send x`.
  func describe(_ effect: Effect) -> String {
    switch effect {
    case .send(let input): return "send \(inputs[input])"
    case .emit(let output): return "emit \(outputs[output])"
    case .cancel(let id): return "cancel \(effectIDs[id])"
    case .after(let timer): return "after " + describe(timer)
    case .every(let timer): return "every " + describe(timer)
    }
  }

  private func describe(_ timer: Timer) -> String {
    let options =
      (timer.queue == 0 ? [] : ["queue \(queues[timer.queue])"])
      + (timer.id.map { ["id \(effectIDs[$0])"] } ?? [])
    let suffix = options.isEmpty ? "" : " (\(options.joined(separator: ", ")))"
    return "\(DurationText.format(timer.nanoseconds)) send \(inputs[timer.input])\(suffix)"
  }

  /// A quoted DOT identifier; "(start)" and "(any)" cannot clash with names, which have no
  /// parentheses.
  private static func dotID(_ name: String) -> String { name.quoted }
}
