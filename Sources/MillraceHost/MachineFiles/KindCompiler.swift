/// Turns a decoded `MachineFile` into a `KindDefinition`: checks every reference between
/// fields, interns names and lays the table out for dispatch.
///
/// The rules for unknown names are in `KindDefinition`'s documentation.
struct KindCompiler {
  /// A use of a name in the file, and its role there.
  private struct Reference {
    enum Role {
      case initial, source, target, final, handled, sent, emitted, timerID, cancelled, queue
    }
    var name: String
    var path: JSONPath
    var role: Role
  }

  /// The most queues a kind may have, `default` included (the core numbers them in a byte).
  static let queueLimit = 256

  private let file: MachineFile
  private let source: String
  private var errors: [MachineFileDiagnostic] = []
  private var warnings: [MachineFileDiagnostic] = []

  /// Compiles `file` (named `source` in diagnostics); throws every problem found.
  static func compile(_ file: MachineFile, source: String) throws(MachineFileErrors)
    -> KindDefinition
  {
    var compiler = KindCompiler(file: file, source: source)
    return try compiler.compile()
  }

  private init(file: MachineFile, source: String) {
    self.file = file
    self.source = source
  }

  private mutating func compile() throws(MachineFileErrors) -> KindDefinition {
    let declared = declaredStates()
    let references = self.references(declared)
    func uses(_ roles: Reference.Role...) -> [Reference] {
      references.filter { roles.contains($0.role) }
    }
    let states = table(
      declared?.map(\.state.name), "states", uses(.initial, .source, .target))
    let inputs = table(file.inputs, "inputs", uses(.handled, .sent))
    let outputs = table(file.outputs, "outputs", uses(.emitted))
    let effectIDs = table(nil, "ids", uses(.timerID))
    let declaredQueues = file.queues.keys.filter { $0 != "default" }.sorted()
    let queues = table(["default"] + declaredQueues, "queues", [], limit: Self.queueLimit)

    for reference in references {
      let (table, noun) =
        switch reference.role {
        case .initial, .source, .target, .final: (states, "state")
        case .handled, .sent: (inputs, "input")
        case .emitted: (outputs, "output")
        case .timerID, .cancelled: (effectIDs, "id")
        case .queue: (queues, "queue")
        }
      if table.index(of: reference.name) == nil {
        let hint = reference.role == .cancelled ? " (no \"after\" or \"every\" effect has it)" : ""
        error(reference.path, "unknown \(noun) \(reference.name.quoted)\(hint)")
      }
    }
    checkMigration(file.migrate.states, "states", "state", against: states)
    checkMigration(file.migrate.inputs, "inputs", "input", against: inputs)
    if file.states == nil { warnAboutTargetOnlyStates(references) }
    if file.inputs == nil { warnAboutUnhandledInputs(references) }
    guard errors.isEmpty else { throw MachineFileErrors(errors) }
    let tree = stateTree(declared ?? [], states)
    let sites = effectSites(declared)
    let hasData = KindDataCompiler.hasData(file, sites: sites)
    let hierarchical =
      !tree.isFlat
      || (declared ?? []).contains { !$0.state.entry.isEmpty || !$0.state.exit.isEmpty }
    let pairs = (inputs.count + 1) * states.count
    if (hierarchical || hasData) && pairs > KindDefinition.stepLimit {
      error(
        JSONPath.root.key("states"),
        "a kind with nested states, entry and exit effects or data may have at most "
          + "\(KindDefinition.stepLimit) (inputs + 1) × states; this one has \(pairs)")
    }
    guard errors.isEmpty else { throw MachineFileErrors(errors) }

    var layout = TableLayout(
      file: file, states: states, inputs: inputs, outputs: outputs, queues: queues,
      effectIDs: effectIDs)
    let none = [[KindDefinition.PlacedEffect]](repeating: [], count: states.count)
    let (entry, exit) =
      hierarchical || hasData
      ? declared.map { layout.stateEffects($0) } ?? (none, none) : (none, none)
    var data: KindDefinition.DataModel?
    if hasData {
      var compiler = KindDataCompiler(file: file, inputs: inputs, outputs: outputs, layout: layout)
      data = compiler.compile(sites: sites)
      for (path, message) in compiler.errors { error(path, message) }
    }
    guard errors.isEmpty else { throw MachineFileErrors(errors) }
    var definition = KindDefinition(
      kind: file.kind, source: source,
      initial: tree.initialLeaf(of: layout.index(file.initial, in: states)),
      states: states, inputs: inputs, outputs: outputs, queues: queues,
      queuePolicies: queues.names.map { file.queues[$0]?.policy ?? .merge },
      migration: file.migrate, effectIDs: effectIDs, tree: tree, rows: layout.rows,
      effects: layout.effects, steps: nil, warnings: warnings,
      effectArguments: layout.effectArguments, data: data,
      stateSetWords: layout.stateSetWords, stateSetStride: layout.stateSetStride,
      candidateStart: layout.candidateStart, candidateRows: layout.candidateRows)
    if hierarchical || hasData {
      definition.layOutSteps(entry: entry, exit: exit, guarded: hasData)
    }
    checkFinalStates(definition)
    guard errors.isEmpty else { throw MachineFileErrors(errors) }
    return definition
  }

  /// The declared states with their paths, every nested state after its parent (the order of
  /// their indices), or nil when the file declares none. Reports a name declared twice and a
  /// compound state's `initial` that is not one of its own children.
  private mutating func declaredStates() -> [(state: MachineFile.State, path: JSONPath)]? {
    guard let top = file.states else { return nil }
    for (path, name) in MachineFile.State.repeatedNames(top.enumerated().map { ($0, $1) }) {
      error(path, "duplicate state \(name.quoted)")
    }
    var flattened: [(state: MachineFile.State, path: JSONPath)] = []
    func visit(_ states: [MachineFile.State], at path: JSONPath) {
      for (position, state) in states.enumerated() {
        let path = path.index(position)
        if let initial = state.initial, !state.children.contains(where: { $0.name == initial }) {
          error(
            path.key("initial"),
            "\(initial.quoted) is not one of the states of \(state.name.quoted)")
        }
        flattened.append((state, path))
        visit(state.children, at: path.key("states"))
      }
    }
    visit(top, at: JSONPath.root.key("states"))
    return flattened
  }

  /// The nesting of `declared` (whose names are `states`, in order), with the final states.
  private func stateTree(
    _ declared: [(state: MachineFile.State, path: JSONPath)], _ states: InternedNames
  ) -> StateTree {
    var parents = [KindDefinition.StateIndex?](repeating: nil, count: states.count)
    var initialChildren = [KindDefinition.StateIndex?](repeating: nil, count: states.count)
    for (state, _) in declared {
      let index = Int(states.index(of: state.name)!)
      initialChildren[index] = state.initial.flatMap(states.index(of:))
      for child in state.children { parents[Int(states.index(of: child.name)!)] = UInt16(index) }
    }
    let finals = states.names.map(file.final.contains)
    return StateTree(parents: parents, initialChildren: initialChildren, finals: finals)
  }

  /// A leaf that a row goes to and that no row leaves must be declared final; a declared
  /// final state must be a leaf that no row leaves. A row leaves a leaf when it applies there
  /// (to the leaf, an ancestor, or `"*"`) and has a `to`, even back to the same state (it
  /// exits and re-enters). The initial state alone is not checked: a one-state machine whose
  /// rows all stay is not finished at birth. (This is what makes `"to": "logedIn"` an error
  /// even without declared states.)
  private mutating func checkFinalStates(_ definition: KindDefinition) {
    let tree = definition.tree
    func isLeft(_ leaf: KindDefinition.StateIndex) -> Int? {
      let lineage = tree.lineage(of: leaf)
      return definition.rows.indices.first { position in
        let row = definition.rows[position]
        return row.to != nil && lineage.contains { definition.matches(row.from, $0) }
      }
    }
    for (position, name) in file.final.enumerated() {
      let path = JSONPath.root.key("final").index(position)
      guard let state = definition.states.index(of: name) else { continue }
      if !tree.isLeaf(state) {
        error(path, "\(name.quoted) has nested states; only a leaf state can be final")
      } else if let row = isLeft(state) {
        error(path, "final state \(name.quoted) is left by transitions[\(row)]")
      }
    }
    var reached: [(leaf: KindDefinition.StateIndex, path: JSONPath)] = []
    for (position, row) in definition.rows.enumerated() {
      guard let target = row.to else { continue }
      let path = JSONPath.root.key("transitions").index(position).key("to")
      reached.append((tree.initialLeaf(of: target), path))
    }
    var reported = Set<KindDefinition.StateIndex>()
    for (leaf, path) in reached where !tree.finals[Int(leaf)] && isLeft(leaf) == nil {
      guard reported.insert(leaf).inserted else { continue }
      error(
        path,
        "state \(definition.states[leaf].quoted) is never left: no transition goes from it to "
          + "another state (declare it in \"final\" if that is meant)")
    }
  }

  /// Every effect of the file with its path and row (nil for a state's entry or exit
  /// effect): each declared state's entry and exit effects, then the transitions'.
  private func effectSites(_ declared: [(state: MachineFile.State, path: JSONPath)]?)
    -> [KindDataCompiler.Site]
  {
    var sites: [KindDataCompiler.Site] = []
    for (state, path) in declared ?? [] {
      for key in ["entry", "exit"] {
        let effects = key == "entry" ? state.entry : state.exit
        for (index, effect) in effects.enumerated() {
          sites.append((effect, path.key(key).index(index), nil))
        }
      }
    }
    for (row, transition) in file.transitions.enumerated() {
      let path = JSONPath.root.key("transitions").index(row).key("effects")
      for (index, effect) in transition.effects.enumerated() {
        sites.append((effect, path.index(index), row))
      }
    }
    return sites
  }

  /// Every use of a name in the file: the initial states, the final states, then each
  /// declared state's entry and exit effects, then the transitions.
  private func references(_ declared: [(state: MachineFile.State, path: JSONPath)]?)
    -> [Reference]
  {
    var references: [Reference] = []
    func use(_ name: String, _ path: JSONPath, _ role: Reference.Role) {
      references.append(Reference(name: name, path: path, role: role))
    }
    use(file.initial, JSONPath.root.key("initial"), .initial)
    for (position, name) in file.final.enumerated() {
      use(name, JSONPath.root.key("final").index(position), .final)
    }
    func use(_ effect: MachineFile.Effect, _ path: JSONPath) {
      switch effect {
      case .send(let input, _): use(input, path.key("send"), .sent)
      case .emit(let output, _): use(output, path.key("emit"), .emitted)
      case .cancel(let id): use(id, path.key("cancel"), .cancelled)
      case .after(let timer), .every(let timer):
        use(timer.send, path.key("send"), .sent)
        if let queue = timer.queue { use(queue, path.key("queue"), .queue) }
        if let id = timer.id { use(id, path.key("id"), .timerID) }
      }
    }
    let sites = effectSites(declared)
    for (effect, path, row) in sites where row == nil { use(effect, path) }
    for (state, path) in declared ?? [] {
      for (index, effect) in state.entry.enumerated() where effect.timer?.id == nil {
        guard effect.timer != nil else { continue }
        use(TableLayout.entryTimerID(state.name, index), path.key("entry").index(index), .timerID)
      }
    }
    var rowSites = sites.drop { $0.row == nil }
    for (row, transition) in file.transitions.enumerated() {
      let path = JSONPath.root.key("transitions").index(row)
      if case .input(let name) = transition.on { use(name, path.key("on"), .handled) }
      switch transition.from {
      case .any: break
      case .state(let name): use(name, path.key("from"), .source)
      case .states(let names):
        for (index, name) in names.enumerated() {
          use(name, path.key("from").index(index), .source)
        }
      }
      if let to = transition.to { use(to, path.key("to"), .target) }
      while let site = rowSites.first, site.row == row {
        use(site.effect, site.path)
        rowSites.removeFirst()
      }
    }
    return references
  }

  /// The table of `declared` names, or of the names `uses` make when nothing is declared;
  /// a table that would exceed `limit` is reported at the top-level key `plural`.
  private mutating func table(
    _ declared: [String]?, _ plural: String, _ uses: [Reference],
    limit: Int = InternedNames.capacity
  ) -> InternedNames {
    var table = InternedNames()
    for name in declared ?? uses.map(\.name) where table.intern(name, limit: limit) == nil {
      error(JSONPath.root.key(plural), "too many \(plural) (at most \(limit))")
      break
    }
    return table
  }

  /// Checks one section of `migrate` (`migrate.states`, noun `state`): every target must be a
  /// name of `table`, and no source may be (an old name the kind still has is not old).
  private mutating func checkMigration(
    _ mapping: [String: String], _ section: String, _ noun: String, against table: InternedNames
  ) {
    for (old, new) in mapping.sorted(by: { $0.key < $1.key }) {
      let path = JSONPath.root.key("migrate").key(section).key(old)
      if table.index(of: old) != nil {
        error(
          path,
          "\(old.quoted) is still one of the kind's \(section); "
            + "only a name the kind no longer has can be migrated")
      } else if table.index(of: new) == nil {
        error(path, "unknown \(noun) \(new.quoted)")
      }
    }
  }

  private mutating func warnAboutTargetOnlyStates(_ references: [Reference]) {
    let left = Set(references.filter { $0.role != .target }.map(\.name))
    var reported = Set<String>()
    for use in references where use.role == .target && !left.contains(use.name) {
      guard reported.insert(use.name).inserted else { continue }
      warn(
        use.path,
        "state \(use.name.quoted) appears only in \"to\", never in \"from\" or \"initial\" "
          + "(declare \"states\" to make unknown states errors)")
    }
  }

  private mutating func warnAboutUnhandledInputs(_ references: [Reference]) {
    if file.transitions.contains(where: { $0.on == .any }) { return }
    let handled = Set(references.filter { $0.role == .handled }.map(\.name))
    var reported = Set<String>()
    for use in references where use.role == .sent && !handled.contains(use.name) {
      guard reported.insert(use.name).inserted else { continue }
      warn(
        use.path,
        "input \(use.name.quoted) is sent but no transition handles it "
          + "(declare \"inputs\" to make unknown inputs errors)")
    }
  }

  private mutating func error(_ path: JSONPath, _ message: String) {
    errors.append(MachineFileDiagnostic(file: source, path: "\(path)", message: message))
  }

  private mutating func warn(_ path: JSONPath, _ message: String) {
    warnings.append(MachineFileDiagnostic(file: source, path: "\(path)", message: message))
  }
}
