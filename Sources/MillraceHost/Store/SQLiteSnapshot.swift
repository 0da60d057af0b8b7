import CSQLite
import MillraceWire

/// The store's snapshot: machine names, kinds, states and pending timers in SQLite (WAL),
/// `machines.sqlite3` under the data directory, as an *image indexed by store slot*: the
/// machines of each `ImageRow.slotsPerRow` consecutive slots in one row of
/// `rows(id INTEGER PRIMARY KEY, machines INTEGER, body BLOB)` (`id` is `slot >> slotBits`,
/// `body` the row's machines in `ImageRow`'s form); `states(id INTEGER PRIMARY KEY, body
/// BLOB)`, the states that replace the image cells' own (`StatesRow`: a state record
/// checkpointed without a rewrite of its image row), by ids in `stateNames(id INTEGER PRIMARY
/// KEY, text BLOB)` (`StateNames`); and `checkpoint(epoch)`, one row: the epoch of the last
/// journal whose records are in. `MachineStore` writes into it at checkpoints, a
/// journal's records in one transaction.
///
/// A checkpoint rewrites the rows its records fall in, each whole, and only those
/// (`RowChanges`): it finds a machine by its slot, so no name is hashed, sorted or compared,
/// and its cost is at most the image's size however scattered the changes are, with no B-tree
/// search per machine. The rows' machine counts (not their bodies) are kept in memory.
///
/// Used by one thread at a time (the loop, or the store's checkpoint worker while it runs a
/// job); SQLite's connection is opened without its own mutex.
///
/// A store of an earlier layout is migrated when opened, in one transaction, then rewritten with
/// this layout's page size (`VACUUM`) if it has another (`SQLiteSnapshot+Migration.swift`):
/// schema version 5 (without `states` and `stateNames`), 4 (the image in chunks in name order), 3 and 2 (a `machines` table of one
/// row per machine, 2 without `checkpoint`), 0 (a rowid `machines` table and a `timers`
/// table). The machines of an earlier layout take slots 0, 1, 2, ... in name order; the
/// journals left with it, of the versions its daemons wrote (before 6, without slots), are
/// replayed by name (`MachineStore`).
final class SQLiteSnapshot {
  let database: SQLiteConnection
  let path: String
  /// The statements every checkpoint or read runs, prepared once.
  private let beginStatement, commitStatement, rollbackStatement: SQLiteConnection.Statement
  let selectBody, insertRow, updateRow, deleteRow: SQLiteConnection.Statement
  private let updateEpoch: SQLiteConnection.Statement
  let selectStates, writeStates, insertStateName: SQLiteConnection.Statement
  /// The ids of state texts (`stateNames`), read at open.
  let stateNames = StateNames()
  /// The machines in each row, by row id (0: no row).
  private(set) var rowMachines: [Int]
  /// A row's body read for a checkpoint (`holdOldBody`), and the body being written.
  private var oldBody = UnsafeMutableRawBufferPointer(start: nil, count: 0)
  let newBody = ByteBuffer(capacity: 2 * ImageChunk.targetBytes)
  /// Tests only: runs (on the thread that applies) as a checkpoint's merge begins, once its
  /// first row is written, where it can no longer be abandoned.
  var mergeHook: (@Sendable () -> Void)?

  /// The snapshot's size in bytes as SQLite sees it, its pages whether they are in
  /// `machines.sqlite3` yet or still in the write-ahead log: what a checkpoint may have to
  /// rewrite (`CheckpointPacing`). Measured when the snapshot opens and after each checkpoint,
  /// by the thread that ran it. (The file alone holds a few pages until SQLite first merges its
  /// log into it, at 1,000 pages: a million machines' image after their `SPAWN`s was all in the
  /// log, and the checkpoints were paced as for an empty store, each rewriting the whole image
  /// for 16,384 records.)
  private(set) var size = 0

  /// Measures `size`; leaves it as it was when SQLite fails.
  private func measure() {
    let sql = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
    try? database.run(sql) { size = Int(SQLiteConnection.integer($0, 0) ?? 0) }
  }

  /// The epoch of the last journal whose records are in (0: none yet).
  private(set) var appliedEpoch: UInt64 = 0

  /// The schema version (`PRAGMA user_version`) of this layout.
  static let schemaVersion = 6
  /// The page size of a new (or migrated) database.
  static let pageSize = 65536

  /// Opens or creates `machines.sqlite3` in `directory` (which must exist), migrating a store
  /// of an earlier layout.
  ///
  /// The connection holds the database's lock for its lifetime (`locking_mode=EXCLUSIVE`):
  /// the daemon is the store's only user, and a WAL transaction then takes no file lock and
  /// touches no shared-memory index. Temporary data stays in memory (`temp_store=MEMORY`).
  init(directory: String, durability: Durability) throws(StoreError) {
    path = directory + "/machines.sqlite3"
    database = try SQLiteConnection(path: path)
    try database.execute(
      """
      PRAGMA locking_mode=EXCLUSIVE;
      PRAGMA page_size=\(Self.pageSize);
      PRAGMA journal_mode=WAL;
      PRAGMA synchronous=\(durability == .strict ? "FULL" : "NORMAL");
      PRAGMA busy_timeout=2000;
      PRAGMA temp_store=MEMORY;
      """)
    var version = 0
    try database.run("PRAGMA user_version") { version = Int(SQLiteConnection.integer($0, 0) ?? 0) }
    var tables: Set<String> = []
    try database.run("SELECT name FROM sqlite_master WHERE type = 'table'") {
      tables.insert(SQLiteConnection.text($0, 0))
    }
    if version > Self.schemaVersion {
      throw StoreError(
        operation: "open \(path)", code: SQLITE_CANTOPEN,
        message: "schema version \(version) is newer than this daemon's (\(Self.schemaVersion))")
    }
    if version < Self.schemaVersion {
      try Self.createOrMigrate(database, from: version, tables: tables)
    }
    beginStatement = try database.prepare("BEGIN")
    commitStatement = try database.prepare("COMMIT")
    rollbackStatement = try database.prepare("ROLLBACK")
    selectBody = try database.prepare("SELECT body FROM rows WHERE id = ?")
    insertRow = try database.prepare(Self.insertRowSQL)
    updateRow = try database.prepare("UPDATE rows SET machines = ?, body = ? WHERE id = ?")
    deleteRow = try database.prepare("DELETE FROM rows WHERE id = ?")
    updateEpoch = try database.prepare("UPDATE checkpoint SET epoch = ?")
    selectStates = try database.prepare("SELECT body FROM states WHERE id = ?")
    writeStates = try database.prepare(
      "INSERT INTO states(id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
    )
    insertStateName = try database.prepare("INSERT INTO stateNames(id, text) VALUES (?, ?)")
    var epoch: UInt64 = 0
    try database.run("SELECT epoch FROM checkpoint") {
      epoch = UInt64(bitPattern: SQLiteConnection.integer($0, 0) ?? 0)
    }
    var rowMachines: [Int] = []
    // A row no slot can be in, or that says it holds no machine (none is written so), is
    // damage: reported, not skipped with the machines in it.
    var damaged: Int64?
    try database.run("SELECT id, machines FROM rows") { row in
      let id = Int(SQLiteConnection.integer(row, 0) ?? -1)
      let machines = Int(SQLiteConnection.integer(row, 1) ?? 0)
      guard id >= 0, id <= Int(UInt32.max) >> ImageRow.slotBits,
        (1...ImageRow.slotsPerRow).contains(machines)
      else { return damaged = SQLiteConnection.integer(row, 0) ?? -1 }
      if id >= rowMachines.count {
        rowMachines += repeatElement(0, count: id + 1 - rowMachines.count)
      }
      rowMachines[id] = machines
    }
    if let damaged {
      throw StoreError(
        operation: "read \(path)", code: SQLITE_CORRUPT,
        message: "row \(damaged) is not a row of the image (damaged)")
    }
    // Ids 1, 2, 3, ... in order; a gap or a text too long for one is damage.
    let names = stateNames
    var badName: Int64?
    try database.run("SELECT id, text FROM stateNames ORDER BY id") { row in
      let id = SQLiteConnection.integer(row, 0) ?? 0
      let text = SQLiteConnection.bytes(row, 1)
      guard badName == nil, id == Int64(names.count + 1), text.count <= StateNames.longestText
      else { return badName = badName ?? id }
      names.append(text)
    }
    if let badName {
      throw StoreError(
        operation: "read \(path)", code: SQLITE_CORRUPT,
        message: "state name \(badName) is out of order or too long (damaged)")
    }
    self.rowMachines = rowMachines
    appliedEpoch = epoch
    measure()
  }

  deinit {
    if oldBody.baseAddress != nil { oldBody.deallocate() }
  }

  /// The statement that writes a new row: id, machines, body.
  static let insertRowSQL = "INSERT INTO rows(id, machines, body) VALUES (?, ?, ?)"

  /// Calls `body` with a cursor over every machine, in slot order; the rows' bytes are valid
  /// until the cursor moves on.
  func withRows<Result, Failure: Error>(_ body: (inout Rows) throws(Failure) -> Result)
    throws(Failure) -> Result
  {
    var rows = Rows(snapshot: self, rowMachines: rowMachines)
    defer {
      database.reset(selectBody)
      database.reset(selectStates)
    }
    return try body(&rows)
  }

  /// A read of the machines, one at a time, a row's body read in place, each machine's state
  /// the one its `states` row names, if any.
  struct Rows {
    fileprivate let snapshot: SQLiteSnapshot
    fileprivate let rowMachines: [Int]
    /// The next row id to read.
    private var rowIndex = 0
    private var reader: ImageRow.Reader?
    /// The `states` row of the machines read (its body, copied), and its id (-1: none yet).
    private var states: [UInt8] = []
    private var statesRow = -1

    fileprivate init(snapshot: SQLiteSnapshot, rowMachines: [Int]) {
      self.snapshot = snapshot
      self.rowMachines = rowMachines
    }

    /// The state of the machine in `slot` that replaces its cell's, if any.
    private mutating func replacedState(
      of slot: UInt32
    ) throws(StoreError) -> UnsafeRawBufferPointer? {
      let row = StatesRow.row(of: slot)
      if row != statesRow {
        states = try snapshot.statesBody(of: row).map(Array.init) ?? []
        statesRow = row
      }
      let id = states.withUnsafeBytes { StatesRow.id(at: StatesRow.index(of: slot), in: $0) }
      guard id != 0 else { return nil }
      guard let text = snapshot.stateNames.text(of: id) else {
        throw snapshot.damage("the state of slot \(slot) names no state text (damaged)")
      }
      return text
    }

    /// The next machine (valid until the next call), or nil after the last; throws when SQLite
    /// fails, or when a row or a machine's timers do not decode (damage).
    mutating func next() throws(StoreError) -> StoredRow? {
      while true {
        if reader != nil, let (cell, machine) = reader!.next() {
          guard machine.timers.isEmpty || TimerEncoding.isValid(machine.timers) else {
            throw snapshot.damage(
              "the timers of machine \(String(decoding: machine.name, as: UTF8.self)) "
                + "do not decode (damaged)")
          }
          let slot = UInt32(truncatingIfNeeded: (rowIndex - 1) << ImageRow.slotBits | cell)
          return StoredRow(
            slot: slot, name: machine.name, kind: machine.kind,
            state: try replacedState(of: slot) ?? machine.state,
            timers: StoredTimers(machine.timers))
        }
        if let reader, reader.isDamaged {
          throw snapshot.damage("row \(rowIndex - 1) does not decode (damaged)")
        }
        while rowIndex < rowMachines.count, rowMachines[rowIndex] == 0 { rowIndex += 1 }
        guard rowIndex < rowMachines.count else { return nil }
        reader = ImageRow.Reader(try snapshot.body(of: rowIndex))
        rowIndex += 1
      }
    }
  }

  /// The body of row `id`, in place: valid until `selectBody` is run again or reset.
  func body(of id: Int) throws(StoreError) -> UnsafeRawBufferPointer {
    database.reset(selectBody)
    database.bind(selectBody, 1, integer: Int64(id))
    guard let row = try database.nextRow(selectBody) else {
      throw damage("row \(id) is missing (damaged)")
    }
    return SQLiteConnection.bytes(row, 0)
  }

  /// The body of `states` row `id` in place (valid until `selectStates` is run again or
  /// reset), or nil when there is none.
  func statesBody(of id: Int) throws(StoreError) -> UnsafeRawBufferPointer? {
    database.reset(selectStates)
    database.bind(selectStates, 1, integer: Int64(id))
    guard let row = try database.nextRow(selectStates) else { return nil }
    return SQLiteConnection.bytes(row, 0)
  }

  /// Copies `body` (a row's, read in place) into `oldBody` and returns the copy: valid until
  /// the next call.
  func holdOldBody(_ body: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    if body.count > oldBody.count {
      if oldBody.baseAddress != nil { oldBody.deallocate() }
      oldBody = .allocate(byteCount: max(body.count, 2 * ImageChunk.targetBytes), alignment: 16)
    }
    oldBody.copyMemory(from: body)
    return UnsafeRawBufferPointer(rebasing: oldBody[..<body.count])
  }

  /// The error for damage found in the image.
  func damage(_ message: String) -> StoreError {
    StoreError(operation: "read \(path)", code: SQLITE_CORRUPT, message: message)
  }

  /// The number of stored machines: the sum of the rows' counts.
  func count() -> Int { rowMachines.reduce(0, +) }

  /// Notes that row `id` now holds `machines` machines (0: it is gone).
  func setRowMachines(_ machines: Int, at id: Int) {
    if id >= rowMachines.count {
      guard machines > 0 else { return }
      rowMachines += repeatElement(0, count: id + 1 - rowMachines.count)
    }
    rowMachines[id] = machines
  }

  /// Writes the changes among `records` (a journal's header and its records of the current
  /// version, each with its slot) and `epoch` as the last journal applied, in one transaction
  /// (`SQLiteSnapshot+Checkpoint.swift`); rolls it back on failure. When `abandoned` returns
  /// true before the first row is written (asked every 1,024 records while they are read, and
  /// once before they are grouped), stops, rolls back and throws
  /// `StoreError.abandonedCheckpoint`: the snapshot is as it was before.
  func apply(
    journal records: UnsafeRawBufferPointer, epoch: UInt64, abandoned: (() -> Bool)? = nil
  ) throws(StoreError) {
    let before = rowMachines
    let names = stateNames.count
    do throws(StoreError) {
      try database.run(beginStatement)
      try rewriteRows(journal: records, abandoned: abandoned)
      try database.run(updateEpoch, [.integer(Int64(bitPattern: epoch))])
      try database.run(commitStatement)
      measure()
    } catch {
      // A failed statement, or a failed COMMIT, leaves the transaction open.
      _ = try? database.run(rollbackStatement)
      rowMachines = before
      stateNames.rollBack(to: names)
      throw error
    }
    appliedEpoch = epoch
  }

  /// Where the connection keeps statement journals and other temporary data (`PRAGMA
  /// temp_store`: 2 is memory).
  func tempStore() throws(StoreError) -> Int64? {
    var tempStore: Int64?
    try database.run("PRAGMA temp_store") { tempStore = SQLiteConnection.integer($0, 0) }
    return tempStore
  }

  /// Copies the write-ahead log into the database file and empties it (`wal_checkpoint
  /// (TRUNCATE)`): the snapshot is then whole in `machines.sqlite3`, its `-wal` of size 0.
  func mergeLog() throws(StoreError) {
    try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  }
}
