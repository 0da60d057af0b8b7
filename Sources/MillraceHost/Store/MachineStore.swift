import MillraceUV
import MillraceWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Keeps machine names, kinds, states and pending timers under a data directory: a SQLite
/// snapshot (`machines.sqlite3`, WAL) and a journal of the turns since its last checkpoint
/// (`machines.journal`). Single-threaded: use it on the loop thread.
///
/// A host groups the changes of one loop turn between `begin()` and `commit()` and writes
/// replies only after `commit()` returned: what was acknowledged is on disk (DESIGN §4.4).
/// A commit copies the turn's records into the journal's mapped pages (and, `strict`, calls
/// `fdatasync`): no system call under `batched`, no per-machine bookkeeping. Every
/// `checkpointRecords` records or `checkpointBytes` of journal, the journal is read back, the
/// latest change of each machine goes into the snapshot in one SQLite transaction, and the
/// journal starts a new epoch (its earlier records no longer count). Opening replays a journal
/// left by a crash into the snapshot; a record cut off by the crash (its turn was never
/// acknowledged) is dropped and reported in `recoveryNote`.
///
/// Reading is streaming: `forEach` hands out one row at a time with its texts as the bytes
/// SQLite holds (no `String` per row, no array of every machine); `loadAll` builds records on
/// top of it. A clean stop calls `close()`, which checkpoints what the journal holds (at most
/// `checkpointRecords` records or `checkpointBytes` of journal, plus the last turn's) and
/// merges SQLite's write-ahead log: nothing is saved again. A machine not saved since its
/// timers were stored keeps their wall-clock deadlines and the time each had left at that save,
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
  private let snapshot: SQLiteSnapshot
  private let journal: TurnJournal
  // Touched by every commit, on the loop thread only, and no access spans a call that could
  // re-enter the store: no dynamic exclusivity checks (eleven per batched SEND otherwise).
  @exclusivity(unchecked) private var inTransaction = false
  /// The open turn's records, and how many.
  @exclusivity(unchecked) private var turnBytes = ByteBuffer()
  @exclusivity(unchecked) private var turnRecords = 0
  /// Records committed since the last checkpoint.
  @exclusivity(unchecked) private var journalRecords = 0
  /// The journal length at which a checkpoint is due (pushed on after a failed one).
  @exclusivity(unchecked) private var checkpointAt = MachineStore.checkpointBytes
  /// After a failed checkpoint only the journal's length makes the next one due, so that a
  /// failing snapshot is not retried on every turn.
  @exclusivity(unchecked) private var retryingCheckpoint = false

  /// Records committed since the last checkpoint that make the next one due: a bound on a
  /// checkpoint's transaction (and on a replay after a crash).
  public static let checkpointRecords = 1024
  /// Journal bytes that make the next checkpoint due.
  public static let checkpointBytes = 1 << 20

  /// What opening found in the journal worth a log line (bytes dropped after its last whole
  /// record), or nil.
  public private(set) var recoveryNote: String?
  /// The error of the last checkpoint that failed during a commit (the commit itself held:
  /// its changes are in the journal), or nil once one succeeds.
  public var checkpointFailure: StoreError? { lastCheckpointFailure }
  @exclusivity(unchecked) private var lastCheckpointFailure: StoreError?
  /// Checkpoints taken since opening (ones that had something to do).
  public private(set) var checkpoints = 0
  /// Set by `close()`: commits are refused from then on.
  private var closed = false

  /// Opens or creates the store in `directory` (which must exist), replaying a journal left by
  /// a crash into the snapshot.
  ///
  /// The snapshot's connection holds the database's lock for its lifetime
  /// (`locking_mode=EXCLUSIVE`), taken before the journal is touched: a second daemon on the
  /// same directory fails here and changes nothing.
  public init(directory: String, durability: Durability) throws(StoreError) {
    self.durability = durability
    snapshot = try SQLiteSnapshot(directory: directory, durability: durability)
    journal = try TurnJournal(path: directory + "/machines.journal", sync: durability == .strict)
    files = StoreFiles(directory: directory)
    let (changes, cutOff) = journal.recoverChanges()
    if cutOff {
      recoveryNote =
        "journal: \(changes.count) change(s) replayed; a record cut off or damaged after them "
        + "was dropped (a turn cut off before it was acknowledged)"
    }
    if journal.version != JournalFormat.version {
      // A journal of an earlier version: its changes written in the current one, checkpointed
      // from there, and the journal goes on in the current version.
      let records = ByteBuffer()
      for change in changes { JournalFormat.append(change, epoch: journal.epoch, to: records) }
      let journal = JournalFormat.header(epoch: self.journal.epoch) + records.bytes
      try journal.withBytes { (records) throws(StoreError) in try apply(records) }
      try self.journal.reset()
    } else if !changes.isEmpty {
      try checkpoint()
    } else if cutOff {
      try journal.reset()
    }
  }

  /// Calls `body` with every stored machine, one row at a time, ordered by name, after a
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

  /// Every stored machine with its timers, ordered by name (after a checkpoint of what was
  /// committed): `forEach`'s rows as records.
  public func loadAll() throws(StoreError) -> [StoredMachine] {
    try checkpoint()
    return try snapshot.withRows { (rows) throws(StoreError) in
      var machines: [StoredMachine] = []
      while let row = try rows.next() { machines.append(row.machine) }
      return machines
    }
  }

  /// The number of stored machines (after a checkpoint of what was committed): for a host to
  /// check its capacity before it restores any. Reads the whole table (about 40 ms for a
  /// million machines).
  public func count() throws(StoreError) -> Int {
    try checkpoint()
    return try snapshot.count()
  }

  /// Starts the transaction of one loop turn (idempotent).
  public func begin() throws(StoreError) {
    inTransaction = true
  }

  /// Writes (inserts or replaces) a machine and its timers.
  public func save(_ machine: StoredMachine) throws(StoreError) {
    try save(name: machine.name, kind: machine.kind, state: machine.state, timers: machine.timers)
  }

  /// Writes (inserts or replaces) a machine and its timers, given as parts: what
  /// `save(StoredMachine(...))` does without building the record first.
  public func save(
    name: String, kind: String, state: String, timers: [StoredTimer] = []
  ) throws(StoreError) {
    inTransaction = true
    JournalFormat.appendSave(
      name: name, kind: kind, state: state, timers: timers, epoch: journal.epoch, to: turnBytes)
    turnRecords += 1
  }

  /// Deletes a machine and its timers.
  public func delete(name: String) throws(StoreError) {
    inTransaction = true
    JournalFormat.appendDelete(name: name, epoch: journal.epoch, to: turnBytes)
    turnRecords += 1
  }

  /// Commits the turn's transaction; when it returns, the changes are durable to the level
  /// of `durability`. Takes a checkpoint when one is due; a checkpoint that fails does not
  /// fail the commit (see `checkpointFailure`) and is tried again a journal's worth later.
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
    let due =
      (!retryingCheckpoint && journalRecords >= Self.checkpointRecords)
      || journal.length >= checkpointAt
    guard due else { return }
    do {
      try checkpoint()
    } catch {
      verify()
      lastCheckpointFailure = error
      retryingCheckpoint = true
      checkpointAt = journal.length + Self.checkpointBytes
    }
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

  /// Puts every committed change into the snapshot in one transaction (the journal read back,
  /// the latest change of each machine) and starts the journal's next epoch. A crash in
  /// between is harmless: replaying the journal again gives the same rows.
  public func checkpoint() throws(StoreError) {
    guard journal.length > JournalFormat.headerSize else { return }
    try journal.withRecords { (records) throws(StoreError) in try apply(records) }
    try journal.reset()
    journalRecords = 0
    lastCheckpointFailure = nil
    retryingCheckpoint = false
    checkpointAt = Self.checkpointBytes
    checkpoints += 1
  }

  /// Writes the latest change of each machine among `records` (a journal's header and
  /// records of the current version) into the snapshot in one transaction, binding the
  /// records' bytes in place; rolls it back on failure.
  private func apply(_ records: UnsafeRawBufferPointer) throws(StoreError) {
    do {
      try JournalFormat.forEachLatest(records) { (record) throws(StoreError) in
        try snapshot.apply(record)
      }
      try snapshot.commit()
    } catch {
      snapshot.rollback()
      throw error
    }
  }

  /// Ends the store's work for a clean stop: checkpoints what the journal holds (bounded by
  /// `checkpointRecords` and `checkpointBytes`, plus the last turn's records) and merges
  /// SQLite's write-ahead log into `machines.sqlite3`, so the snapshot holds every committed
  /// change and the files take their least room. Saves nothing again: commit the last turn
  /// first. Commits are refused afterwards; reads and `verify()` still work. The files stay
  /// open, and locked, until the store is released. Idempotent.
  public func close() throws(StoreError) {
    guard !closed else { return }
    try checkpoint()
    try snapshot.mergeLog()
    closed = true
  }
}
