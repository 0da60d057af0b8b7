import Millrace

/// Definition changes (DESIGN §4.2, last paragraph): a reload or a start never loses a
/// machine silently. New definitions are checked against every machine that needs them
/// (`DefinitionCheck`) and refused as a whole, naming the kind, the machines and what is
/// missing, unless `migrate` maps the old names (or, at start, the drop flag drops them).
extension MachineHost {
  /// What `planRestore` decided before anything was spawned.
  struct RestorePlan {
    /// Machines whose stored records were mapped (to be saved once restored).
    var rewritten: [String] = []
    /// Machines to delete from the store.
    var dropped: [String] = []
    /// What the caller should log: one summary line per kind of change.
    var notes: [String] = []
  }

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

  /// Maps `records` to the current kinds in place (dropped ones removed when
  /// `droppingUnmappable`) and checks the runtime's capacity; throws, before anything is
  /// spawned, when a record does not fit or there is not room for all.
  func planRestore(_ records: inout [StoredMachine], droppingUnmappable: Bool)
    throws(RestoreRefusal) -> RestorePlan
  {
    var check = DefinitionCheck(kinds: registeredKinds, dropping: droppingUnmappable)
    var plan = RestorePlan()
    var timers = 0
    var kept = 0
    for index in records.indices {
      var record = records[index]
      switch check.map(&record) {
      case .dropped:
        plan.dropped.append(record.name)
        continue
      case .changed: plan.rewritten.append(record.name)
      case .unchanged, .refused: break
      }
      timers += record.timers.count
      records[kept] = record
      kept += 1
    }
    records.removeLast(records.count - kept)
    let problems = check.problems
    guard problems.isEmpty else {
      throw .definitions(DefinitionChangeError(problems, advice: Self.startAdvice))
    }
    let capacity = runtime.capacity
    guard records.count <= capacity.machines - machineCount else {
      throw .tooManyMachines(stored: records.count, limit: capacity.machines)
    }
    guard timers <= capacity.timers - runtime.statistics.timers else {
      throw .tooManyTimers(stored: timers, limit: capacity.timers)
    }
    // Each restored timer is an in-flight effect too: a cell of the effect pool (every armed
    // timer holds one, so the cells in use are at least the timers armed).
    guard timers <= capacity.effects - runtime.statistics.timers else {
      throw .tooManyEffects(stored: timers, limit: capacity.effects)
    }
    if !plan.rewritten.isEmpty {
      var mapped = NameSample()
      for name in plan.rewritten { mapped.add(name) }
      plan.notes.append("mapped to the machine files' names through \"migrate\": \(mapped)")
    }
    if check.droppedMachines.count > 0 || check.droppedTimers.count > 0 {
      let timers = check.droppedTimers
      plan.notes.append(
        "--drop-unmappable: dropped \(check.droppedMachines) (kind or state gone) and "
          + "\(timers.count) timers (input or queue gone) of \(timers.first.joined(separator: ", "))"
      )
    }
    return plan
  }

  /// Saves what `planRestore` changed once the machines are restored: mapped records
  /// rewritten, dropped ones deleted. A failed commit leaves them for the next commit.
  func saveRestored(_ plan: RestorePlan) -> [String] {
    guard let store, !plan.rewritten.isEmpty || !plan.dropped.isEmpty else { return [] }
    deleted.formUnion(plan.dropped)
    let changed = plan.rewritten.compactMap { directory.slot(of: $0) }
    guard persist(into: store, slots: changed, onlyChanged: false) else {
      for index in changed { markChanged(index) }
      return ["the mapped and dropped machines are not saved yet (retried at the next commit)"]
    }
    deleted.removeAll()
    forgetChanges(keepingCapacityUpTo: 0)
    return []
  }

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
  private func settle(_ machines: [HostedMachine]) -> [HostedMachine] {
    for _ in 0..<Self.settleRounds {
      guard runtime.hasPendingInputs else { return [] }
      let queued = machines.reduce(0) { $0 + $1.queuedInputs }
      guard queued > 0 else { return [] }
      runtime.dispatch(limit: 2 * queued + 1024)
    }
    return machines.filter { $0.queuedInputs > 0 }
  }
}
