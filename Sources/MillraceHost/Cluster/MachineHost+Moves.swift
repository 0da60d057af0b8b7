import Millrace

/// Moving machines between hosts (`DUMP`, `RESTORE`, `MIGRATE`; docs/cluster.md): a machine
/// leaves as its record (what a restart keeps of it: kind, state and context, pending timers
/// with their deadlines and effect ids) and is placed from it elsewhere, as a restore places
/// it, without running entry effects again.
extension MachineHost {
  /// The records of `names`' machines, in order, after dispatching until none of them has a
  /// queued input (an input accepted here is processed here, before the machine leaves);
  /// names with no machine here are left out. Throws, naming them, when some kept receiving
  /// inputs (a machine that keeps sending to itself).
  public func recordsToMove(_ names: [String]) throws(MachinesBusy) -> [StoredMachine] {
    let machines = names.compactMap(machine)
    let stuck = settle(machines)
    guard stuck.isEmpty else {
      var sample = NameSample()
      for machine in stuck { sample.add(machine.name) }
      throw MachinesBusy(machines: sample)
    }
    let now = clock()
    return machines.compactMap { $0.stored(clock: now) }
  }

  /// Places the machine of `record` under `name` (the record's own name is not used), its
  /// names mapped through its kind's `migrate` as at a restart, its timers re-armed with the
  /// same deadlines and effect ids; the change is committed at the end of the turn. With
  /// `replacing`, a machine of that name here is removed first (its record deleted); without,
  /// it makes the restore fail (`.exists`). Fails, changing nothing, when the kind lacks what
  /// the record needs (`.nokind`, `.nostate`, `.noinput`) or there is no room (`.busy`).
  public func restore(_ record: StoredMachine, as name: String, replacing: Bool) -> Result<
    Void, HostFailure
  > {
    var record = record
    record.name = name
    var check = DefinitionCheck(kinds: registeredKinds, dropping: false)
    if check.map(&record) == .refused {
      let problem = check.problems.first!
      let code: HostFailure.Code =
        switch problem.missing {
        case .kind: .nokind
        case .input, .queue: .noinput
        case .state, .context, .queuedInputs: .nostate
        }
      return .failure(HostFailure(code, problem.description))
    }
    if directory.slot(of: name) != nil {
      guard replacing else { return .failure(.nameTaken(name)) }
      _ = kill(name)
    }
    let id: MachineID
    switch place(kind: record.kind, name: name, state: record.state) {
    case .success(let placed): id = placed
    case .failure(let failure): return .failure(failure)
    }
    let problems = slot(directory.entry(id.index).pointee.kind).operations.restore(
      id, name, record.kind, record.timers, clock())
    guard problems.isEmpty else {
      removeMachine(id.index)
      return .failure(HostFailure(.busy, problems.joined(separator: "; ")))
    }
    markChanged(id.index)
    return .success(())
  }
}

/// Machines that still had queued inputs after the dispatch before a move.
public struct MachinesBusy: Error, Hashable, Sendable {
  /// Which.
  public var machines: NameSample
}
