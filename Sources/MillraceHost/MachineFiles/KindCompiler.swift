/// Turns a decoded `MachineFile` into a `KindDefinition`: checks every reference between
/// fields, interns names and lays the table out for dispatch.
///
/// The rules for unknown names are in `KindDefinition`'s documentation.
struct KindCompiler {
  /// A use of a name in the file, and its role there.
  private struct Reference {
    enum Role { case initial, source, target, handled, sent, emitted, timerID, cancelled, queue }
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
    let references = self.references()
    func uses(_ roles: Reference.Role...) -> [Reference] {
      references.filter { roles.contains($0.role) }
    }
    let states = table(file.states, "states", uses(.initial, .source, .target))
    let inputs = table(file.inputs, "inputs", uses(.handled, .sent))
    let outputs = table(file.outputs, "outputs", uses(.emitted))
    let effectIDs = table(nil, "ids", uses(.timerID))
    let declaredQueues = file.queues.keys.filter { $0 != "default" }.sorted()
    let queues = table(["default"] + declaredQueues, "queues", [], limit: Self.queueLimit)

    for reference in references {
      let (table, noun) =
        switch reference.role {
        case .initial, .source, .target: (states, "state")
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

    let layout = TableLayout(
      file: file, states: states, inputs: inputs, outputs: outputs, queues: queues,
      effectIDs: effectIDs)
    return KindDefinition(
      kind: file.kind, source: source, initial: layout.index(file.initial, in: states),
      states: states, inputs: inputs, outputs: outputs, queues: queues,
      queuePolicies: queues.names.map { file.queues[$0]?.policy ?? .merge },
      migration: file.migrate,
      effectIDs: effectIDs, rows: layout.rows, effects: layout.effects, warnings: warnings,
      stateSetWords: layout.stateSetWords, stateSetStride: layout.stateSetStride,
      candidateStart: layout.candidateStart, candidateRows: layout.candidateRows)
  }

  /// Every use of a name in the file, in file order.
  private func references() -> [Reference] {
    var references: [Reference] = []
    func use(_ name: String, _ path: JSONPath, _ role: Reference.Role) {
      references.append(Reference(name: name, path: path, role: role))
    }
    use(file.initial, JSONPath.root.key("initial"), .initial)
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
      for (index, effect) in transition.effects.enumerated() {
        let path = path.key("effects").index(index)
        switch effect {
        case .send(let input): use(input, path.key("send"), .sent)
        case .emit(let output): use(output, path.key("emit"), .emitted)
        case .cancel(let id): use(id, path.key("cancel"), .cancelled)
        case .after(let timer), .every(let timer):
          use(timer.send, path.key("send"), .sent)
          if let queue = timer.queue { use(queue, path.key("queue"), .queue) }
          if let id = timer.id { use(id, path.key("id"), .timerID) }
        }
      }
    }
    return references
  }

  /// The table of `declared` names, or of the names `uses` make when nothing is declared;
  /// a table that would exceed `limit` is reported at the top-level key `plural`.
  private mutating func table(
    _ declared: [String]?, _ plural: String, _ uses: [Reference], limit: Int = NameTable.capacity
  ) -> NameTable {
    var table = NameTable()
    for name in declared ?? uses.map(\.name) where table.intern(name, limit: limit) == nil {
      error(JSONPath.root.key(plural), "too many \(plural) (at most \(limit))")
      break
    }
    return table
  }

  /// Checks one section of `migrate` (`migrate.states`, noun `state`): every target must be a
  /// name of `table`, and no source may be (an old name the kind still has is not old).
  private mutating func checkMigration(
    _ mapping: [String: String], _ section: String, _ noun: String, against table: NameTable
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
