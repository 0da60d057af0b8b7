import MillraceUV
import MillraceWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Keeps machine names, kinds, states and pending timers under a data directory: a SQLite
/// snapshot (`machines.sqlite3`, WAL) and two journal files (`machines.journal`,
/// `machines.journal-2`) of the turns the snapshot does not have yet. Use it on the loop
/// thread; checkpoints run on a thread of their own.
///
/// A host groups the changes of one loop turn between `begin()` and `commit()` and writes
/// replies only after `commit()` returned: what was acknowledged is on disk (DESIGN §4.4).
/// A commit copies the turn's records into the active journal's mapped pages (and, `strict`,
/// calls `fdatasync`): no system call under `batched`, no per-machine bookkeeping.
///
/// Checkpoints never block the loop. Every `checkpointRecords` records or `checkpointBytes` of
/// journal (more for a large snapshot: `CheckpointPacing`), the active journal is sealed and
/// handed to the store's checkpoint worker, which rewrites the image's rows its records fall in
/// (each record names its machine's store slot; the latest change of a slot wins) in one SQLite
/// transaction (with the journal's epoch, so a journal already in is never replayed), while
/// commits go on into the other journal file, which starts a new epoch.
/// One checkpoint runs at a time: while it does, the active journal grows, and the next
/// checkpoint takes all of it (under load, checkpoints grow and catch up: many changes of one
/// machine become one write of it). The worker runs at a lower priority than the loop, so that
/// a loop sharing its CPU answers at once; a backlog of `lendingLength` bytes makes commits
/// lend it the loop's CPU in bounded waits (`lendToCheckpoint()`), and only a journal of
/// `journalLimit` bytes makes a commit wait for the whole checkpoint in flight. Opening
/// replays the journals' records the snapshot lacks, older epoch first (both in one
/// checkpoint); a record cut off by a crash (its turn was never acknowledged) is dropped and
/// reported in `recoveryNote`.
///
/// Reading is streaming: `forEach` hands out one row at a time with its texts as the bytes
/// SQLite holds (no `String` per row, no array of every machine); `loadAll` builds records on
/// top of it. A clean stop calls `close()`, which abandons the checkpoint in flight unless its
/// merge has begun, checkpoints what both journals hold in one rewrite of the image and merges
/// SQLite's write-ahead log: nothing is saved again. A machine not saved since its timers
/// were stored keeps their wall-clock deadlines and the time each had left at that save,
/// and `HostClock.restoredDeadline(of:)` waits the lesser of the two: exact with a correct wall
/// clock, and never longer than the time left at that save.
///
/// Its files can be taken from under it (deleted, replaced, the directory made unwritable):
/// `verify()` finds that out (a `StoreMonitor` calls it; a failed commit or checkpoint does
/// too), and from then on `failure` says why and stays set: what the store takes is no
/// longer kept.
public final class MachineStore {
  /// The durability it was opened with (`batched` or `strict`).
  public let durability: Durability
  /// The data directory.
  public var directory: String { files.directory }
  private let files: StoreFiles
  /// Why the store can no longer keep changes, once `verify()` found it; never cleared.
  public var failure: StoreFailure? { foundFailure }
  @exclusivity(unchecked) private var foundFailure: StoreFailure?
  /// Called once, on the loop thread, when `verify()` finds the store unusable.
  public var onFailure: ((StoreFailure) -> Void)?
  /// The snapshot: the loop's, except while `checkpointInFlight` (then the worker's).
  private let snapshot: SQLiteSnapshot
  /// The journal commits go into, and the other one: free, or sealed (`spareSealed`) while its
  /// checkpoint is in flight or after it failed (then it is retried before anything else).
  @exclusivity(unchecked) private var journal: TurnJournal
  @exclusivity(unchecked) private var spare: TurnJournal
  @exclusivity(unchecked) private var spareSealed = false
  private let worker = CheckpointWorker()
  @exclusivity(unchecked) private var checkpointInFlight = false
  // Touched by every commit, on the loop thread only, and no access spans a call that could
  // re-enter the store: no dynamic exclusivity checks (eleven per batched SEND otherwise).
  @exclusivity(unchecked) private var inTransaction = false
  /// The open turn's records, and how many.
  private let turnBytes = ByteBuffer()
  @exclusivity(unchecked) private var turnRecords = 0
  /// Records committed into the active journal (since its epoch started).
  @exclusivity(unchecked) private var journalRecords = 0
  /// The active journal's length at which a checkpoint is due (pushed on after a failed one).
  @exclusivity(unchecked) private var checkpointAt = MachineStore.checkpointBytes
  /// When checkpoints are due, lent to and waited for, for the snapshot's size as of the last
  /// checkpoint (`CheckpointPacing`).
  @exclusivity(unchecked) private(set) var pacing = CheckpointPacing(snapshotBytes: 0)

  /// The snapshot's size as the last checkpoint left it (`SQLiteSnapshot.size`), which paces
  /// the next ones.
  var snapshotSize: Int { snapshot.size }
  /// After a failed checkpoint only the journal's length makes the next one due, so that a
  /// failing snapshot is not retried on every turn.
  @exclusivity(unchecked) private var retryingCheckpoint = false
  /// When the last lending ended (`CLOCK_MONOTONIC`, nanoseconds).
  @exclusivity(unchecked) private var lendingEnded = 0
  /// The slots of the machines changed by name, once a change is made by name.
  @exclusivity(unchecked) private var namedSlots: SlotsByName?
  /// Whether a commit wrote records since the last `checkpointWhenIdle()`.
  @exclusivity(unchecked) private var committedSinceIdleCheck = false

  /// Records committed since the last checkpoint started that make the next one due (for a
  /// small snapshot: `CheckpointPacing`).
  public static let checkpointRecords = 16384
  /// Journal bytes that make the next checkpoint due (for a small snapshot).
  public static let checkpointBytes = 1 << 20
  /// The active journal's length at which a commit waits for the checkpoint in flight before
  /// it starts the next one: a bound on the journal (and on a replay after a crash) when
  /// checkpoints fall behind (for a small snapshot).
  public static let journalLimit = 16 << 20
  /// The active journal's length from which a commit, while a checkpoint is in flight, lends
  /// the worker the loop's CPU (`lendToCheckpoint()`): the worker runs at a lower priority
  /// than the loop, and a backlog this long means it is not getting enough CPU (for a small
  /// snapshot).
  public static let lendingLength = journalLimit / 8
  /// The longest a commit lends the worker with a backlog of one `lendingLength` (n of them:
  /// n² times that), and the most in all, in nanoseconds.
  static let lendingStep = 125_000
  static let lendingMost = 2_000_000
  /// The least time the loop keeps between two lendings, in nanoseconds.
  static let lendingPeriod = 500_000
  /// The journal files' names in the data directory.
  static let journalNames = ["machines.journal", "machines.journal-2"]

  /// What opening found in the journals worth a log line (bytes dropped after the last whole
  /// record), or nil.
  public private(set) var recoveryNote: String?
  /// The error of the last checkpoint that failed (the commits held: their changes are in the
  /// journal), or nil once one succeeds. Learnt at the first commit after the worker ended it.
  public var checkpointFailure: StoreError? { lastCheckpointFailure }
  /// Called, on the loop thread, when a checkpoint fails after the last one succeeded: once
  /// per run of failures (the journals keep every change meanwhile, and the checkpoint is
  /// retried a journal's worth later). Learnt at the next commit, or at
  /// `collectCheckpoint()` on an idle store.
  public var onCheckpointFailure: ((StoreError) -> Void)?
  @exclusivity(unchecked) private var lastCheckpointFailure: StoreError?
  /// Checkpoints completed since opening (ones that had something to do), counted when the
  /// loop learns of them (at a commit, or when it waits for one).
  public private(set) var checkpoints = 0
  /// Set by `close()`: commits are refused from then on.
  private var closed = false
  /// Tests only: runs on the worker at the start of each checkpoint job, which fails with what
  /// it returns (to hold a checkpoint in flight, or fail one).
  var checkpointHook: (@Sendable () -> StoreError?)?
  /// Tests only: runs on the worker as a checkpoint's merge begins (`SQLiteSnapshot
  /// .mergeHook`), where a clean stop no longer abandons it but waits for it.
  var mergeHook: (@Sendable () -> Void)? {
    get { snapshot.mergeHook }
    set { snapshot.mergeHook = newValue }
  }

  /// Opens or creates the store in `directory` (which must exist), replaying the journals'
  /// records the snapshot lacks (left by a crash) into it.
  ///
  /// The snapshot's connection holds the database's lock for its lifetime
  /// (`locking_mode=EXCLUSIVE`), taken before the journals are touched: a second daemon on the
  /// same directory fails here and changes nothing.
  public init(directory: String, durability: Durability) throws(StoreError) {
    self.durability = durability
    snapshot = try SQLiteSnapshot(directory: directory, durability: durability)
    let paths = Self.journalNames.map { directory + "/" + $0 }
    journal = try TurnJournal(path: paths[0], sync: durability == .strict)
    spare = try TurnJournal(path: paths[1], sync: durability == .strict)
    files = StoreFiles(directory: directory)
    try recover()
    pace()
  }

  deinit {
    // The job in flight reads the spare journal and writes the snapshot: it ends first.
    worker.stop()
  }

  /// Replays the journals of an epoch after the snapshot's last (left by a crash), older epoch
  /// first: both in one checkpoint when both are (the older's records first, so that the image
  /// is rewritten once); then starts the active journal's next epoch. When one is of a version
  /// before 6 (records without a slot: left by an earlier daemon, with a store of an earlier
  /// layout that this open migrated), both are replayed by name instead, one checkpoint each,
  /// through their changes written again with the slots of their names (`SlotsByName`).
  private func recover() throws(StoreError) {
    var replayed = 0
    var cutOff = false
    var recovered: [TurnJournal] = []
    let pending = [journal, spare].filter { $0.epoch > snapshot.appliedEpoch }
    for file in pending.sorted(by: { $0.epoch < $1.epoch }) {
      let (count, cut) = file.recover()
      replayed += count
      cutOff = cutOff || cut
      if count > 0 { recovered.append(file) }
    }
    if recovered.contains(where: { $0.version < JournalFormat.slottedVersion }) {
      let slots = try SlotsByName(snapshot)
      for file in recovered {
        let records = ByteBuffer()
        for change in file.recoveredChanges() {
          let name = Array(change.name.utf8)
          let slot: UInt32?
          if case .save = change {
            slot = slots.slot(saving: name)
          } else {
            slot = slots.slot(deleting: name)
          }
          // A delete of a name the image lacks has nothing to delete.
          if let slot { JournalFormat.append(change, slot: slot, epoch: file.epoch, to: records) }
        }
        let converted = JournalFormat.header(epoch: file.epoch) + records.bytes
        try converted.withBytes { (converted) throws(StoreError) in
          try snapshot.apply(journal: converted, epoch: file.epoch)
        }
        checkpoints += 1
      }
    } else if let newer = recovered.last {
      try apply(recovered.count == 2 ? recovered[0] : nil, then: newer)
      checkpoints += 1
    }
    if cutOff {
      recoveryNote =
        "journal: \(replayed) change(s) replayed; a record cut off or damaged after them "
        + "was dropped (a turn cut off before it was acknowledged)"
    }
    try journal.reset(epoch: max(journal.epoch, spare.epoch, snapshot.appliedEpoch) + 1)
  }

  /// Calls `body` with every stored machine, one row at a time, in slot order, after a
  /// checkpoint of what was committed: its name, kind and state as UTF-8 bytes in place and
  /// its timers decoded as they are iterated, valid during the call only. Rethrows what
  /// `body` throws (and stops there); throws `StoreError` when reading fails or a row's
  /// timers are damaged. Reads nothing into memory beyond the row at hand.
  public func forEach(_ body: (StoredRow) throws -> Void) throws {
    try checkpoint()
    try snapshot.withRows { rows in
      while let row = try rows.next() { try body(row) }
    }
  }

  /// Every stored machine with its timers, ordered by the bytes of their names (after a
  /// checkpoint of what was committed): `forEach`'s rows as records.
  public func loadAll() throws(StoreError) -> [StoredMachine] {
    try checkpoint()
    let machines = try snapshot.withRows { (rows) throws(StoreError) in
      var machines: [(name: [UInt8], machine: StoredMachine)] = []
      while let row = try rows.next() { machines.append((Array(row.name), row.machine)) }
      return machines
    }
    return machines.sorted { $0.name.lexicographicallyPrecedes($1.name) }.map(\.machine)
  }

  /// The number of stored machines (after a checkpoint of what was committed): for a host to
  /// check its capacity before it restores any. Reads the whole table (13–17 ms for a million
  /// machines, `Bench/store`).
  public func count() throws(StoreError) -> Int {
    try checkpoint()
    return snapshot.count()
  }

  /// Starts the transaction of one loop turn (idempotent).
  public func begin() throws(StoreError) {
    inTransaction = true
  }

  /// Writes (inserts or replaces) a machine and its timers, in store slot `slot` (as
  /// `save(slot:nameUTF8:kind:state:timers:)` takes it), or by its name when nil.
  public func save(_ machine: StoredMachine, slot given: UInt32? = nil) throws(StoreError) {
    let slot: UInt32
    if let given {
      forgetSlotsByName()
      slot = given
    } else {
      slot = try slotsByName().slot(saving: Array(machine.name.utf8))
    }
    UTF8Text.withBytes(of: machine.name) { name in
      appendSave(
        slot: slot, nameUTF8: UnsafeRawBufferPointer(name), kind: machine.kind,
        state: machine.state, timers: machine.timers)
    }
  }

  /// Writes (inserts or replaces) a machine and its timers by its name (the store keeps its
  /// slot: `SlotsByName`), given as parts: what `save(StoredMachine(...))` does without
  /// building the record first.
  public func save(
    name: String, kind: String, state: String, timers: [StoredTimer] = []
  ) throws(StoreError) {
    try save(StoredMachine(name: name, kind: kind, state: state, timers: timers))
  }

  /// `save(name:kind:state:timers:)`, the name given as UTF-8 bytes.
  public func save(
    nameUTF8 name: UnsafeRawBufferPointer, kind: String, state: String,
    timers: [StoredTimer] = []
  ) throws(StoreError) {
    appendSave(
      slot: try slotsByName().slot(saving: Array(name)), nameUTF8: name, kind: kind,
      state: state, timers: timers)
  }

  /// Writes (inserts or replaces) a machine and its timers in store slot `slot`, its name given
  /// as UTF-8 bytes (as the daemon's directory keeps it: no `String` made per save). The
  /// daemon's slot is the machine's runtime index. A write by slot makes the store forget the
  /// slots it kept for writes by name: the next write by name reads them again from the image,
  /// after a checkpoint, so that it never takes a slot written by slot (in the same turn it is
  /// refused). Only the turn's commit can fail.
  public func save(
    slot: UInt32, nameUTF8 name: UnsafeRawBufferPointer, kind: String, state: String,
    timers: [StoredTimer] = []
  ) {
    forgetSlotsByName()
    appendSave(slot: slot, nameUTF8: name, kind: kind, state: state, timers: timers)
  }

  /// Writes that the machine in store slot `slot` took `state`, its name, kind and timers
  /// staying those of its last save in the slot (a state record, `JournalFormat`): for a
  /// machine whose last save holds no timers and that has none now. A slot without a saved
  /// machine makes the next checkpoint fail (damage). As a write by slot, it makes the store
  /// forget the slots it kept by name (`save(slot:...)`).
  public func saveState(slot: UInt32, state: String) {
    forgetSlotsByName()
    inTransaction = true
    JournalFormat.appendState(slot: slot, state: state, epoch: journal.epoch, to: turnBytes)
    turnRecords += 1
  }

  /// Appends a save to the turn's records.
  private func appendSave(
    slot: UInt32, nameUTF8 name: UnsafeRawBufferPointer, kind: String, state: String,
    timers: [StoredTimer]
  ) {
    inTransaction = true
    JournalFormat.appendSave(
      slot: slot, name: name, kind: kind, state: state, timers: timers, epoch: journal.epoch,
      to: turnBytes)
    turnRecords += 1
  }

  /// Deletes the machine in store slot `slot`, named `name`, and its timers; as a write by
  /// slot, it makes the store forget the slots it kept by name (`save(slot:...)`).
  public func delete(slot: UInt32, name: String) {
    forgetSlotsByName()
    appendDelete(slot: slot, name: name)
  }

  /// Appends a delete to the turn's records.
  private func appendDelete(slot: UInt32, name: String) {
    inTransaction = true
    JournalFormat.appendDelete(slot: slot, name: name, epoch: journal.epoch, to: turnBytes)
    turnRecords += 1
  }

  /// Deletes the machine `name` (by name, as `save(name:...)` keeps it) and its timers; nothing
  /// when no machine has the name.
  public func delete(name: String) throws(StoreError) {
    if let slot = try slotsByName().slot(deleting: Array(name.utf8)) {
      appendDelete(slot: slot, name: name)
    }
  }

  /// Drops the slots kept for writes by name, if any: a write by slot may have taken one.
  @inline(__always)
  private func forgetSlotsByName() {
    if namedSlots != nil { namedSlots = nil }
  }

  /// The slots of the machines changed by name, read from the image (after a checkpoint of
  /// what was committed) the first time.
  private func slotsByName() throws(StoreError) -> SlotsByName {
    if let byName = namedSlots { return byName }
    // The checkpoint starts the journal's next epoch, which the turn's records must be of.
    guard turnRecords == 0 else {
      throw StoreError(
        operation: "save by name", code: EINVAL,
        message: "a store written by slot in this turn cannot be written by name in it")
    }
    try checkpoint()
    let byName = try SlotsByName(snapshot)
    namedSlots = byName
    return byName
  }

  /// Commits the turn's transaction; when it returns, the changes are durable to the level
  /// of `durability`. Starts a checkpoint when one is due and none is in flight (it runs on
  /// the worker: the commit does not wait for it); waits for the one in flight only when the
  /// journal reached `journalLimit`. A checkpoint that fails does not fail a commit (see
  /// `checkpointFailure`) and is tried again a journal's worth later.
  public func commit() throws(StoreError) {
    guard inTransaction else { return }
    inTransaction = false
    let records = turnRecords
    turnRecords = 0
    defer { turnBytes.removeAll(keepingCapacityUpTo: 64 * 1024) }
    guard records > 0 else { return }
    guard !closed else {
      throw StoreError(operation: "commit", code: EBADF, message: "the store is closed")
    }
    do {
      try journal.append(turnBytes)
    } catch {
      verify()
      throw error
    }
    journalRecords += records
    committedSinceIdleCheck = true
    if checkpointInFlight {
      if journal.length >= pacing.journalLimit {
        worker.wait()
      } else if journal.length >= pacing.lendingLength {
        lendToCheckpoint()
      }
      guard worker.isFinished else { return }
      finishCheckpoint()
    }
    let due =
      (!retryingCheckpoint && journalRecords >= pacing.records)
      || journal.length >= checkpointAt
    if due { startCheckpoint() }
  }

  /// Lends the checkpoint worker the loop's CPU for a moment: with n `lendingLength`s of
  /// backlog in the active journal, waits for it up to n² `lendingStep`s (`lendingMost` at
  /// most), and not again within `lendingPeriod` of the last lending. The loop is held no
  /// longer than that, and under a load that keeps it busy the worker still gets a share that
  /// grows with the backlog (a fifth of the CPU at one `lendingLength`, half at two, four fifths
  /// from four), well before the journal reaches `journalLimit`, where a commit waits for the
  /// whole checkpoint.
  private func lendToCheckpoint() {
    guard SharedCPU.monotonicNanoseconds() &- lendingEnded >= Self.lendingPeriod else { return }
    let steps = journal.length / pacing.lendingLength
    _ = worker.wait(upTo: min(steps * steps * Self.lendingStep, Self.lendingMost))
    lendingEnded = SharedCPU.monotonicNanoseconds()
  }

  /// Checks that the store's directory and files are still the ones it opened and that the
  /// directory is writable; the first time a check fails, sets `failure` and calls
  /// `onFailure`. Returns `failure`.
  @discardableResult
  public func verify() -> StoreFailure? {
    if foundFailure == nil, let found = files.check() {
      foundFailure = found
      onFailure?(found)
    }
    return foundFailure
  }

  /// Hands a journal to the worker: the sealed spare again when its checkpoint failed, else
  /// the active journal, sealed, the spare taking commits from now on in a new epoch.
  private func startCheckpoint() {
    if !spareSealed {
      do {
        try spare.reset(epoch: max(journal.epoch, spare.epoch) + 1, shrinking: false)
      } catch {
        checkpointFailed(error)
        return
      }
      swap(&journal, &spare)
      spareSealed = true
      journalRecords = 0
    }
    let records = spare.recordsInPlace()
    let epoch = spare.epoch
    let (snapshot, worker) = (snapshot, worker)
    let hook = checkpointHook
    let job = { () -> StoreError? in
      if let hook, let error = hook() { return error }
      do throws(StoreError) {
        try snapshot.apply(journal: records, epoch: epoch) { worker.isAbandoning }
        return nil
      } catch {
        return error
      }
    }
    checkpointInFlight = worker.submit(job)
    // No thread to be had: the checkpoint runs here.
    if !checkpointInFlight { checkpointEnded(job()) }
  }

  /// Takes the outcome of a checkpoint the worker has finished, if one is in flight, without
  /// waiting: what every commit does, for a store that commits nothing for a while
  /// (`StoreMonitor` calls it every second), so that a failed checkpoint is reported then too.
  public func collectCheckpoint() {
    guard checkpointInFlight, worker.isFinished else { return }
    finishCheckpoint()
  }

  /// Starts a checkpoint of the active journal when nothing was committed since the last call,
  /// the journal holds records (for a large snapshot, at least `pacing.idleLength` bytes of
  /// them), and no checkpoint is in flight or failing: the journal of an idle store goes into
  /// the snapshot within moments of its last change (`StoreMonitor` calls this every second),
  /// so that a restart after a crash has little to replay, and the journal's pages leave the
  /// process's memory once the checkpoint is collected. A large snapshot's shorter journal
  /// waits for the next due checkpoint or `close()`; its pages beyond the resident window have
  /// left memory already (`TurnJournal.residentWindow`).
  public func checkpointWhenIdle() {
    defer { committedSinceIdleCheck = false }
    guard !committedSinceIdleCheck, !closed, !checkpointInFlight, foundFailure == nil,
      lastCheckpointFailure == nil, journalRecords > 0, journal.length >= pacing.idleLength
    else { return }
    startCheckpoint()
  }

  /// Takes the outcome of the checkpoint in flight, which finished.
  private func finishCheckpoint() {
    checkpointInFlight = false
    checkpointEnded(worker.takeOutcome())
  }

  /// Notes how the checkpoint of the sealed spare ended: with `error`, or freeing the spare
  /// (its records, now in the snapshot, leave the process's memory).
  private func checkpointEnded(_ error: StoreError?) {
    if let error { return checkpointFailed(error) }
    spareSealed = false
    spare.releaseOlderPages()
    checkpointSucceeded()
  }

  private func checkpointSucceeded() {
    checkpoints += 1
    lastCheckpointFailure = nil
    retryingCheckpoint = false
    pace()
  }

  /// Paces the next checkpoints for the snapshot's size now (`CheckpointPacing`).
  private func pace() {
    pacing = CheckpointPacing(snapshotBytes: snapshot.size)
    checkpointAt = pacing.bytes
  }

  /// Notes a checkpoint that failed (or could not start): reported, and retried once the active
  /// journal grew by another `checkpointBytes`.
  private func checkpointFailed(_ error: StoreError) {
    verify()
    let first = lastCheckpointFailure == nil
    lastCheckpointFailure = error
    retryingCheckpoint = true
    checkpointAt = journal.length + pacing.bytes
    if first { onCheckpointFailure?(error) }
  }

  /// Stops the checkpoint in flight, if any, unless its merge has begun
  /// (`CheckpointWorker.abandon()`, `SQLiteSnapshot.apply`), and takes its outcome: the
  /// snapshot is the loop's again. A checkpoint that ended anyway counts as any other, and
  /// one that failed is reported as any other (`onCheckpointFailure`); one abandoned is not.
  /// Either leaves the spare sealed, for the next checkpoint to take.
  private func abandonCheckpoint() {
    guard checkpointInFlight else { return }
    worker.abandon()
    worker.wait()
    checkpointInFlight = false
    let outcome = worker.takeOutcome()
    guard outcome?.isAbandonedCheckpoint != true else { return }
    checkpointEnded(outcome)
  }

  /// Waits for the checkpoint in flight, if any, and takes its outcome: the snapshot is the
  /// loop's again.
  func settle() {
    guard checkpointInFlight else { return }
    worker.wait()
    finishCheckpoint()
  }

  /// Puts `newer`'s records into the snapshot, after `older`'s when given, in one checkpoint
  /// (one rewrite of the image) in `newer`'s epoch: a machine's record in `newer` wins.
  private func apply(_ older: TurnJournal?, then newer: TurnJournal) throws(StoreError) {
    guard let older else {
      return try snapshot.apply(journal: newer.recordsInPlace(), epoch: newer.epoch)
    }
    let joined = JournalFormat.joined(older.recordsInPlace(), newer.recordsInPlace())
    defer { joined.deallocate() }
    try snapshot.apply(journal: UnsafeRawBufferPointer(joined), epoch: newer.epoch)
  }

  /// Puts every committed change into the snapshot, here and now: waits for the checkpoint in
  /// flight, then checkpoints what the journals hold (`checkpointJournals()`). A crash in
  /// between is harmless: a journal already in the snapshot is not replayed, and replaying one
  /// again would give the same rows.
  public func checkpoint() throws(StoreError) {
    settle()
    try checkpointJournals()
  }

  /// Puts what the journals hold into the snapshot in one checkpoint: the sealed spare (whose
  /// own checkpoint failed or was abandoned) and the active journal together, so that the
  /// image is rewritten once; then the active journal starts its next epoch. The snapshot
  /// must be the loop's (no checkpoint in flight).
  private func checkpointJournals() throws(StoreError) {
    let active = journal.length > JournalFormat.headerSize
    guard spareSealed || active else { return }
    if spareSealed && active {
      try apply(spare, then: journal)
    } else {
      try apply(nil, then: spareSealed ? spare : journal)
    }
    spareSealed = false
    if active {
      try journal.reset(epoch: max(journal.epoch, spare.epoch) + 1)
      journalRecords = 0
    }
    checkpointSucceeded()
  }

  /// Ends the store's work for a clean stop: abandons the checkpoint in flight unless its
  /// merge has begun (then waits for it), checkpoints what the journals still hold in one
  /// rewrite of the image (`checkpointJournals()`) and
  /// merges SQLite's write-ahead log into `machines.sqlite3`, so the snapshot holds every
  /// committed change and the files take their least room; then ends the checkpoint worker.
  /// Saves nothing again: commit the last turn first. Commits are refused afterwards; reads
  /// and `verify()` still work. The files stay open, and locked, until the store is released.
  /// Idempotent.
  public func close() throws(StoreError) {
    guard !closed else { return }
    abandonCheckpoint()
    try checkpointJournals()
    // Both journals are in the snapshot now: their room goes back. A backlog of checkpoints
    // may have grown either, and the grown one may be the active journal by now, emptied by
    // a checkpoint's swap and holding no record (which `checkpointJournals` leaves as it is).
    try journal.reset(epoch: max(journal.epoch, spare.epoch) + 1)
    try spare.reset(epoch: max(journal.epoch, spare.epoch) + 1)
    try snapshot.mergeLog()
    worker.stop()
    closed = true
  }
}
