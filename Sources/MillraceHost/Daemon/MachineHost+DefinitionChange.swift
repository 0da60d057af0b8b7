import Millrace

/// Definition changes (DESIGN §4.2, last paragraph): a reload or a start never loses a
/// machine silently. New definitions are checked against every machine that needs them
/// (`DefinitionCheck`) and refused as a whole, naming the kind, the machines and what is
/// missing, unless `migrate` maps the old names (or, at start, the drop flag drops them).
extension MachineHost {
  /// The advice of a refused start.
  static let startAdvice =
    "Map the old names with \"migrate\" in the kind's machine file, start with the old "
    + "machine files, or start with --drop-unmappable to delete what cannot be mapped; "
    + "nothing was restored and the store is unchanged."

  /// The advice of a refused reload.
  static let reloadAdvice =
    "Map the old names with \"migrate\" in the kind's machine file (or keep them); the old "
    + "definitions stay."

  /// How many rounds of dispatch a reload takes at most to empty the queues of the machines
  /// it moves.
  static let settleRounds = 16

  /// Replaces the file-defined kinds (`source` not `built-in`) with `newKinds`, or throws and
  /// changes nothing.
  ///
  /// Every live machine whose kind changed (anything but its file name, warnings and
  /// `migrate`) must fit the new kind as it is or through its `migrate`; if one does not, the
  /// reload is refused. Otherwise those machines move to the new definition: first the
  /// runtime dispatches until they have no queued input (so every accepted `SEND` is answered
  /// under the definition that accepted it), then each is replaced by a machine of the new
  /// kind with the same name, its state and pending timers (deadlines unchanged) mapped by
  /// name. Subscriptions go on (they are by name); the machine's counters start again.
  /// Machines are checked and named in problems in name order.
  /// Returns what the caller should log.
  @discardableResult
  public func replaceFileKinds(with newKinds: [HostKind]) throws(DefinitionChangeError)
    -> [String]
  {
    var next = registeredKinds.filter { $0.value.source == "built-in" }
    for kind in newKinds { next[kind.name] = kind }
    // Whether the machines of each kind slot move: judged against the definition they run
    // under.
    let movingSlots = kindSlots.indices.filter { index in
      guard let old = kindSlots[index]?.kind else { return false }
      guard let new = next[old.name] else { return true }
      if old.source == "built-in" && new.source == "built-in" { return false }
      guard let oldSchema = old.schema, let newSchema = new.schema else { return true }
      return !oldSchema.runsLike(newSchema)
    }
    var moving: [HostedMachine] = []
    if !movingSlots.isEmpty {
      directory.forEachSlot { index in
        if movingSlots.contains(Int(directory.entry(index).pointee.kind)) {
          moving.append(reference(index))
        }
      }
    }
    moving.sort { $0.name < $1.name }
    let stuck = settle(moving)
    guard stuck.isEmpty else {
      var byKind: [String: NameSample] = [:]
      for machine in stuck { byKind[machine.kind, default: NameSample()].add(machine.name) }
      let problems = byKind.sorted { $0.key < $1.key }.map {
        DefinitionChangeError.Problem(kind: $0.key, missing: .queuedInputs, machines: $0.value)
      }
      throw DefinitionChangeError(problems, advice: Self.reloadAdvice)
    }
    let now = clock()
    var check = DefinitionCheck(kinds: next, dropping: false)
    var records: [StoredMachine] = []
    for machine in moving {
      guard var record = machine.stored(clock: now) else { continue }
      if check.map(&record) != .refused { records.append(record) }
    }
    let problems = check.problems
    guard problems.isEmpty else { throw DefinitionChangeError(problems, advice: Self.reloadAdvice) }
    for (name, index) in kindsByName where next[name] == nil { unregister(index) }
    register(newKinds)
    var notes: [String] = []
    for record in records {
      if let index = directory.slot(of: record.name) { removeMachine(index, named: record.name) }
      switch spawn(kind: record.kind, name: record.name, state: record.state) {
      case .success(let machine): notes += machine.restore(record.timers, clock: now)
      case .failure(let failure): notes.append("\(record.name): not moved: \(failure.text)")
      }
    }
    if !records.isEmpty {
      notes.append("moved \(records.count) machines to their kinds' new definitions")
    }
    return notes
  }

  /// Dispatches until none of `machines` has a queued input, for at most `settleRounds`
  /// rounds; returns the machines that still have some.
  func settle(_ machines: [HostedMachine]) -> [HostedMachine] {
    for _ in 0..<Self.settleRounds {
      guard runtime.hasPendingInputs else { return [] }
      let queued = machines.reduce(0) { $0 + $1.queuedInputs }
      guard queued > 0 else { return [] }
      runtime.dispatch(limit: 2 * queued + 1024)
    }
    return machines.filter { $0.queuedInputs > 0 }
  }
}
