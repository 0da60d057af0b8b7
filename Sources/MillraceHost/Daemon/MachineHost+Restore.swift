import Millrace

/// Restoring the stored machines at start (DESIGN §4.4): one pass over the store's rows
/// (`MachineStore.forEach`), each checked against the kinds (`DefinitionCheck`), spawned and its
/// timers re-armed as it is read; nothing is loaded into memory beyond the row at hand, so a
/// million stored machines cost their place in the runtime and the directory only. A row alike
/// the last one that fitted (kind, state, timers' inputs and queues) is restored from its bytes
/// in place, with no `String` made; into an empty host the name index is built once all rows
/// are read. Rows come in slot order, and each machine is placed in its stored slot
/// (`Runtime.spawn`'s `preferredSlot`), which an empty runtime always gives: then nothing is
/// written back. A machine that gets another slot (a host not empty, a slot past
/// `--max-machines`) is moved in the store: deleted from its old slot, saved in its new one.
extension MachineHost {
  /// What a restore changed in the stored records, to save once the machines run.
  struct RestorePlan {
    /// Machines whose stored records were mapped (to be saved once restored).
    var rewritten: [String] = []
    /// Machines to delete from the store: dropped, or moved from their stored slot.
    var deleted: [Deletion] = []
    /// The runtime slots of machines placed in another slot than their stored one (to be
    /// saved there once restored).
    var moved: [UInt32] = []
  }

  /// Restores every stored machine, or throws and leaves none spawned: when the store cannot
  /// be read, when the machines or their timers exceed the runtime's capacity, or when stored
  /// machines need a kind, state, input or queue the kinds lack and no `migrate` maps it
  /// (see `DefinitionCheck`). With `droppingUnmappable` such machines and timers are dropped
  /// from the store instead. A refusal reads the whole store first, so that it names every
  /// problem and the full counts. Returns what the caller should log (a summary of what was
  /// mapped or dropped; machines and timers that could not be restored).
  public func restore(droppingUnmappable: Bool = false) throws(RestoreRefusal) -> [String] {
    guard let store else { return [] }
    var check = DefinitionCheck(kinds: registeredKinds, dropping: droppingUnmappable)
    var plan = RestorePlan()
    var problems: [String] = []
    let capacity = runtime.capacity
    let timersArmed = runtime.statistics.timers
    let room = (machines: capacity.machines - machineCount, timers: capacity.timers - timersArmed)
    // Each restored timer is an in-flight effect too: a cell of the effect pool (every armed
    // timer holds one, so the cells in use are at least the timers armed).
    let effectRoom = capacity.effects - timersArmed
    var machines = 0
    var timers = 0
    var refusing = false
    // What this restore spawned, to take back if it is refused.
    var spawned: [UInt32] = []
    let now = clock()
    // Into an empty host, the stored names (unique in the store) need no lookup, and the name
    // index is made for all of them at once, once they are read.
    let isEmpty = machineCount == 0
    let filing: Filing = isEmpty ? .unindexed : .checked
    var kinds = KindNames()
    do {
      defer { if isEmpty { directory.index(spawned) } }
      if isEmpty {
        let stored = try store.count()
        directory.reserve(names: stored)
        spawned.reserveCapacity(min(stored, room.machines))
      }
      try store.forEach { row in
        // A row alike the last one that fits is taken as the store holds it; any other is
        // checked and mapped as a record.
        var mapped: StoredMachine?
        if let count = check.fits(row) {
          timers += count
        } else {
          var record = row.machine
          switch check.map(&record) {
          case .dropped:
            plan.deleted.append(Deletion(slot: row.slot, name: record.name))
            return
          case .refused: refusing = true
          case .changed:
            plan.rewritten.append(record.name)
            mapped = record
          case .unchanged: break
          }
          timers += record.timers.count
        }
        machines += 1
        if machines > room.machines || timers > room.timers || timers > effectRoom {
          refusing = true
        }
        guard !refusing else { return }
        // `migrate` maps a record's state and timers, never its name or kind.
        func placeRow(state: UnsafeRawBufferPointer) -> Result<MachineID, HostFailure> {
          guard let kind = kinds.slot(of: row.kind, in: kindsByName) else {
            return .failure(.init(.nokind, "no kind \(String(decoding: row.kind, as: UTF8.self))"))
          }
          return place(
            kindSlot: kind, name: row.name, state: state, filing, preferredSlot: row.slot)
        }
        switch mapped.map({ $0.state.withUTF8Bytes(placeRow) }) ?? placeRow(state: row.state) {
        case .success(let id):
          spawned.append(id.index)
          if id.index != row.slot {
            plan.deleted.append(
              Deletion(slot: row.slot, name: String(decoding: row.name, as: UTF8.self)))
            plan.moved.append(id.index)
          }
          guard !(mapped?.timers.isEmpty ?? row.timers.isEmpty) else { return }
          let operations = slot(directory.entry(id.index).pointee.kind).operations
          if let mapped {
            problems += operations.restore(id, mapped.name, mapped.kind, mapped.timers, now)
          } else {
            problems += operations.restoreStored(id, row.name, row.kind, row.timers, now)
          }
        case .failure(let failure):
          problems.append(
            "\(String(decoding: row.name, as: UTF8.self)): not restored: \(failure.text)")
        }
      }
    } catch {
      takeBack(spawned)
      throw .unreadable("\(error)")
    }
    guard !refusing else {
      takeBack(spawned)
      let definitionProblems = check.problems
      if !definitionProblems.isEmpty {
        throw .definitions(DefinitionChangeError(definitionProblems, advice: Self.startAdvice))
      }
      if machines > room.machines {
        throw .tooManyMachines(stored: machines, limit: capacity.machines)
      }
      if timers > room.timers { throw .tooManyTimers(stored: timers, limit: capacity.timers) }
      throw .tooManyEffects(stored: timers, limit: capacity.effects)
    }
    return notes(of: plan, check) + problems + saveRestored(plan)
  }

  /// The host's kind slot for kind names as the store's rows give them: a row mostly names the
  /// kind the row before it named, which is then found by comparing bytes, without a `String`
  /// or a hash.
  struct KindNames {
    private var last: (name: [UInt8], slot: UInt16)?

    /// The slot `kinds` files the kind named by the UTF-8 bytes `name` in, or nil.
    mutating func slot(of name: UnsafeRawBufferPointer, in kinds: [String: UInt16]) -> UInt16? {
      if let last, last.name.holds(name) { return last.slot }
      guard let slot = kinds[String(decoding: name, as: UTF8.self)] else { return nil }
      last = (Array(name), slot)
      return slot
    }
  }

  /// Removes the machines a refused restore spawned.
  private func takeBack(_ spawned: [UInt32]) {
    for index in spawned { removeMachine(index) }
  }

  /// One summary line per kind of change a restore made to the stored records.
  private func notes(of plan: RestorePlan, _ check: DefinitionCheck) -> [String] {
    var notes: [String] = []
    if !plan.rewritten.isEmpty {
      var mapped = NameSample()
      for name in plan.rewritten { mapped.add(name) }
      notes.append("mapped to the machine files' names through \"migrate\": \(mapped)")
    }
    if check.droppedMachines.count > 0 || check.droppedTimers.count > 0 {
      let timers = check.droppedTimers
      notes.append(
        "--drop-unmappable: dropped \(check.droppedMachines) (kind or state gone) and "
          + "\(timers.count) timers (input or queue gone) of \(timers.first.joined(separator: ", "))"
      )
    }
    return notes
  }

  /// Saves what the restore changed once the machines are restored: mapped records
  /// rewritten, dropped ones deleted, moved ones deleted from their old slots and saved in their
  /// new ones (the deletes first). A failed commit leaves them for the next commit.
  private func saveRestored(_ plan: RestorePlan) -> [String] {
    guard let store, !plan.rewritten.isEmpty || !plan.deleted.isEmpty else { return [] }
    deleted += plan.deleted
    let changed = plan.rewritten.compactMap { directory.slot(of: $0) } + plan.moved
    guard persist(into: store, slots: changed, onlyChanged: false) else {
      for index in changed { markChanged(index) }
      return ["the mapped and dropped machines are not saved yet (retried at the next commit)"]
    }
    deleted.removeAll()
    forgetChanges(keepingCapacityUpTo: 0)
    return []
  }
}
