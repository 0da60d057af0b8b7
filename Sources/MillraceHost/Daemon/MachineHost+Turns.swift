import Logging
import Millrace

/// Turns and durability: what changed in a turn is saved once at its end (DESIGN §4.4).
///
/// A machine changed in a turn is flagged in its directory entry (`DirectoryEntry.isChanged`)
/// and its slot listed in `dirty` once; the turn's commit saves each listed machine that is
/// still flagged, once, and clears the flags. A machine killed since is skipped (its entry is
/// free); one spawned again in the same slot is listed again but saved once.
extension MachineHost {
  /// Commits the turn's changes (when something changed). A failed commit keeps the turn's
  /// changes for the next turn that changes something, whose commit writes them again with its
  /// own (whole states: the live machines and the store agree again once a commit holds).
  ///
  /// After a turn that killed machines, the runtime's and the directory's memory that holds
  /// nothing is given back (`Runtime.releaseMemory()`, `MachineDirectory.releaseMemoryIfEmpty`),
  /// freed on a thread of its own (`HeapRelease.inBackground`);
  /// every turn moves a bounded number of index buckets while the name index resizes.
  public func finishTurn() -> TurnOutcome {
    answeredStep = nil
    if answeredWaiter != nil { answeredWaiter = nil }
    directory.finishTurn()
    let removed = removedThisTurn
    if _slowPath(removed > 0) { releaseRemoved() }
    guard changedThisTurn else { return TurnOutcome(refusal: nil, removedMachines: removed) }
    var committed = true
    if let store {
      committed = store.failure == nil && persist(into: store, slots: dirty, onlyChanged: true)
      if _slowPath(store.failure != nil) { countUnstored() }
    }
    changedThisTurn = false
    // The turn's bookkeeping keeps its capacity for the next turn, unless a burst (thousands
    // of pipelined SENDs) grew it: then it is released, so the memory comes back afterwards.
    let keep = Self.keptCapacity
    awaiting.shrinkIfEmpty(keeping: keep)
    guard _fastPath(committed) else {
      return TurnOutcome(refusal: commitRefusal(), removedMachines: removed)
    }
    if !dirty.isEmpty { forgetChanges(keepingCapacityUpTo: keep) }
    if !deleted.isEmpty { deleted.removeAll(keepingCapacity: deleted.capacity <= keep) }
    return TurnOutcome(refusal: nil, removedMachines: removed)
  }

  /// After a turn that killed machines: the memory that holds nothing is freed on a thread of
  /// its own (freeing the tables of a million machines takes milliseconds).
  @inline(never)
  private func releaseRemoved() {
    removedThisTurn = 0
    var released = HeapRelease.Blocks()
    runtime.releaseMemory { released.deallocating.append($0) }
    directory.releaseMemoryIfEmpty { released.freeing.append($0) }
    HeapRelease.inBackground(released)
  }

  /// With the store unusable nothing more can be kept: what changed is counted, not retried
  /// (a clean stop rebuilds the store from memory).
  @inline(never)
  private func countUnstored() {
    unstoredChanges += dirty.count + deleted.count
    forgetChanges(keepingCapacityUpTo: Self.keptCapacity)
    deleted.removeAll()
  }

  /// Why a turn whose commit failed answers its acknowledgments with an error.
  @inline(never)
  private func commitRefusal() -> HostFailure {
    store?.failure.map { HostFailure.storeUnusable($0, changeMade: true) }
      ?? HostFailure(
        .internal,
        "store commit failed: the change is made but not durable (retried at the next commit)")
  }

  /// A machine removed, to be deleted from the store: its store slot (its runtime index, or
  /// the slot it was stored in, for a stored machine a restore dropped or moved) and its name.
  struct Deletion {
    var slot: UInt32
    var name: String
  }

  /// Entries the per-turn containers keep room for between turns.
  static let keptCapacity = 1024

  /// Ends the store's work for a clean stop, after the last turn's `finishTurn()`: commits
  /// what a failed commit left, then closes the store (`MachineStore.close()`: every committed
  /// change is in its snapshot). No machine is saved again: each one's record is the one of its
  /// last change, timers included, since a machine whose timers change is saved in that turn
  /// (`deliver`). A store found unusable (`MachineStore.verify()`) is rebuilt from memory at
  /// its directory instead (`StoreRebuild`). Returns whether every machine is kept.
  @discardableResult
  public func closeStore() -> Bool {
    guard let store else { return true }
    store.verify()
    var kept = store.failure == nil
    if kept && (!dirty.isEmpty || !deleted.isEmpty) {
      kept = persist(into: store, slots: dirty, onlyChanged: true)
    }
    if let failure = store.failure {
      kept = rebuild(
        store, failure: failure, machines: directory.allSlots.map(reference), clock: clock())
    } else if kept {
      do {
        try store.close()
      } catch {
        logger.warning("store checkpoint at shutdown failed (the journal keeps it): \(error)")
      }
    }
    forgetChanges(keepingCapacityUpTo: 0)
    deleted.removeAll()
    changedThisTurn = false
    return kept
  }

  /// Notes that the machine in directory slot `index` changed in this turn (its record is
  /// saved at the turn's end).
  @inline(__always)
  func markChanged(_ index: UInt32) {
    changedThisTurn = true
    let entry = directory.entry(index)
    guard !entry.pointee.isChanged else { return }
    entry.pointee.isChanged = true
    dirty.append(index)
  }

  /// Empties `dirty`, clearing the marks of the machines it lists.
  func forgetChanges(keepingCapacityUpTo limit: Int) {
    for index in dirty { directory.entry(index).pointee.isChanged = false }
    dirty.removeAll(keepingCapacityUpTo: limit)
  }

  /// Writes the turn's deletes and the records of the machines in `slots` (with
  /// `onlyChanged`, those still marked changed, each once) in one commit; returns whether it
  /// held. A machine whose last record is a save without timers and that has none now is
  /// written as its state alone (`DirectoryEntry.isStoredPlain`). A failed commit leaves every
  /// listed live machine marked, to be written again.
  func persist(into store: MachineStore, slots: [UInt32], onlyChanged: Bool) -> Bool {
    // Read once, and only if a machine has timer deadlines to store (most turns have none).
    // The closure is passed as written (non-escaping): no box for `now`.
    var now: HostClock?
    do throws(StoreError) {
      try store.begin()
      for deletion in deleted { store.delete(slot: deletion.slot, name: deletion.name) }
      let warming = lookahead > 0
      for position in slots.indices {
        if warming { prefetchSave(slots, at: position) }
        let index = slots[position]
        let entry = directory.entry(index)
        guard entry.pointee.isTaken, !onlyChanged || entry.pointee.isChanged else { continue }
        // Cleared as it is written, so a slot listed twice (killed and spawned again in the
        // turn) is written once.
        entry.pointee.isChanged = false
        let kind = slot(entry.pointee.kind)
        let id = entry.pointee.id(slot: index)
        // A machine stored without timers that has none now: its state alone.
        if entry.pointee.isStoredPlain && kind.operations.saveState(id, store) { continue }
        entry.pointee.isStoredPlain = try entry.withName { (name) throws(StoreError) in
          try kind.operations.save(id, name, kind.kind.name, store) {
            if let now { return now }
            let time = clock()
            now = time
            return time
          }
        }
      }
      try store.commit()
      commitCount += 1
      return true
    } catch {
      // The store may hold none of the saves written: state records must not follow them.
      for index in slots where directory.entry(index).pointee.isTaken {
        directory.entry(index).pointee.isStoredPlain = false
      }
      commitFailed(error)
      return false
    }
  }

  /// A failed commit leaves every listed live machine marked, to be written again; counted
  /// and logged.
  @inline(never)
  private func commitFailed(_ error: StoreError) {
    for index in dirty where directory.entry(index).pointee.isTaken {
      directory.entry(index).pointee.isChanged = true
    }
    commitFailures += 1
    logger.error("store commit failed: \(error)")
  }
}
