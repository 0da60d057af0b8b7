import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The store's snapshot: machine names, kinds, states and pending timers in SQLite (WAL),
/// `machines.sqlite3` under the data directory, one row per machine in
/// `machines(name TEXT PRIMARY KEY, kind, state, timers BLOB) WITHOUT ROWID`: the name is
/// stored once (the table is its own index), and the timers are the row's BLOB in their
/// compact form (`TimerEncoding`), NULL for none; and `checkpoint(epoch)`, one row: the epoch
/// of the last journal whose records are in. `MachineStore` writes into it at checkpoints, a
/// journal's records in one transaction, binding the journal's bytes in place.
///
/// Used by one thread at a time (the loop, or the store's checkpoint worker while it runs a
/// job); SQLite's connection is opened without its own mutex.
///
/// A store made before this layout (schema version 0: a rowid `machines` table with a unique
/// name index, and a `timers` table of one row per timer; version 2: the compact table without
/// `checkpoint`) is migrated when opened, in one transaction, then rewritten with this layout's
/// page size (`VACUUM`) if it has another.
final class SQLiteSnapshot {
  private let database: SQLiteConnection
  private let path: String
  /// The statements every checkpoint or read runs, prepared once.
  private let beginStatement, commitStatement, rollbackStatement: SQLiteConnection.Statement
  private let upsertOne, upsertMany, deleteMachine, selectMachines: SQLiteConnection.Statement
  private let updateEpoch: SQLiteConnection.Statement
  /// The size of `machines.sqlite3` in bytes (0 when it cannot be read): what a checkpoint
  /// may have to rewrite (`CheckpointPacing`).
  var fileSize: Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
  }

  /// The epoch of the last journal whose records are in (0: none yet).
  private(set) var appliedEpoch: UInt64 = 0
  /// Saves of the checkpoint being written that wait for a full `upsertMany`: the journal's
  /// bytes, valid during `apply`.
  private var saves: [JournalRecord] = []

  /// Machines one `upsertMany` writes: one statement run (one program, one cursor) for 64 rows
  /// instead of one each, a third less time per machine at a checkpoint of a million.
  static let rowsPerUpsert = 64

  /// The statement that inserts `rows` machines, or replaces their rows when they exist (one
  /// seek each, an insert and an update alike: an UPDATE then an INSERT takes two for a new
  /// machine, REPLACE would delete and re-insert).
  private static func upsert(rows: Int) -> String {
    let values = Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")
    return """
      INSERT INTO machines(name, kind, state, timers) VALUES \(values)
      ON CONFLICT(name) DO UPDATE SET
        kind = excluded.kind, state = excluded.state, timers = excluded.timers
      """
  }

  /// The schema version (`PRAGMA user_version`) of this layout.
  static let schemaVersion = 3
  /// The page size of a new (or migrated) database.
  static let pageSize = 4096

  /// Opens or creates `machines.sqlite3` in `directory` (which must exist), migrating a store
  /// of the earlier layout.
  ///
  /// The connection holds the database's lock for its lifetime (`locking_mode=EXCLUSIVE`):
  /// the daemon is the store's only user, and a WAL transaction then takes no file lock and
  /// touches no shared-memory index.
  ///
  /// Statement journals stay in memory (`temp_store=MEMORY`): each `upsertMany` of a
  /// checkpoint has one, which would otherwise copy every page it changes into a temporary
  /// file before changing it.
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
    // One seek for an insert and an update alike (an UPDATE first, then an INSERT when it
    // changed nothing, takes two for a new machine); REPLACE would delete and re-insert.
    upsertOne = try database.prepare(Self.upsert(rows: 1))
    upsertMany = try database.prepare(Self.upsert(rows: Self.rowsPerUpsert))
    deleteMachine = try database.prepare("DELETE FROM machines WHERE name = ?")
    selectMachines = try database.prepare("SELECT name, kind, state, timers FROM machines")
    updateEpoch = try database.prepare("UPDATE checkpoint SET epoch = ?")
    try database.run("SELECT epoch FROM checkpoint") {
      appliedEpoch = UInt64(bitPattern: SQLiteConnection.integer($0, 0) ?? 0)
    }
  }

  /// Creates the tables of a new store, or migrates one of an earlier schema `version`, in one
  /// transaction: 0, the rowid layout (with or without its `remaining_ns` column), gets its
  /// rows and timers folded into the `WITHOUT ROWID` table; 0 and 2 (the compact table alone)
  /// get `checkpoint` (epoch 0: every journal is newer). Then sets the page size (`VACUUM`,
  /// outside the write-ahead log) when the file has another.
  private static func createOrMigrate(
    _ database: SQLiteConnection, from version: Int, tables: Set<String>
  ) throws(StoreError) {
    try database.execute("BEGIN IMMEDIATE")
    do {
      if version < 2 {
        try database.execute(
          """
          CREATE TABLE machines_v2(
            name TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, timers BLOB
          ) WITHOUT ROWID;
          """)
        if tables.contains("machines") {
          try database.execute(
            """
            INSERT INTO machines_v2(name, kind, state) SELECT name, kind, state FROM machines;
            DROP TABLE machines;
            """)
        }
        if tables.contains("timers") {
          try migrateTimers(database)
          try database.execute("DROP TABLE timers")
        }
        try database.execute("ALTER TABLE machines_v2 RENAME TO machines")
      }
      try database.execute(
        """
        CREATE TABLE IF NOT EXISTS checkpoint(epoch INTEGER NOT NULL);
        INSERT INTO checkpoint SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM checkpoint);
        PRAGMA user_version=\(schemaVersion);
        COMMIT;
        """)
    } catch {
      _ = try? database.execute("ROLLBACK")
      throw error
    }
    var pageSize = 0
    try database.run("PRAGMA page_size") { pageSize = Int(SQLiteConnection.integer($0, 0) ?? 0) }
    guard pageSize != Self.pageSize else { return }
    try database.execute(
      """
      PRAGMA journal_mode=DELETE;
      PRAGMA page_size=\(Self.pageSize);
      VACUUM;
      PRAGMA journal_mode=WAL;
      """)
  }

  /// Folds the rows of the earlier layout's `timers` table into the BLOBs of `machines_v2`
  /// (rows of machines that have no row there are dropped, as the earlier layout ignored them).
  private static func migrateTimers(_ database: SQLiteConnection) throws(StoreError) {
    var hasRemaining = false
    try database.run("PRAGMA table_info(timers)") { row in
      if SQLiteConnection.text(row, 1) == "remaining_ns" { hasRemaining = true }
    }
    var timers: [(machine: String, timer: StoredTimer)] = []
    try database.run(
      """
      SELECT machine, input, repeats, span_ns, deadline_ns, queue, effect_id,
        \(hasRemaining ? "remaining_ns" : "NULL") FROM timers ORDER BY machine, position
      """
    ) { row in
      timers.append(
        (
          SQLiteConnection.text(row, 0),
          StoredTimer(
            input: SQLiteConnection.text(row, 1),
            repeats: SQLiteConnection.integer(row, 2) != 0,
            spanNanoseconds: SQLiteConnection.integer(row, 3) ?? 0,
            deadlineWallNanoseconds: SQLiteConnection.integer(row, 4),
            remainingNanoseconds: SQLiteConnection.integer(row, 7),
            queue: UInt8(truncatingIfNeeded: SQLiteConnection.integer(row, 5) ?? 0),
            effectID: UInt64(bitPattern: SQLiteConnection.integer(row, 6) ?? 0))
        ))
    }
    let update = try database.prepare("UPDATE machines_v2 SET timers = ? WHERE name = ?")
    var start = 0
    while start < timers.count {
      let machine = timers[start].machine
      var end = start
      while end < timers.count, timers[end].machine == machine { end += 1 }
      let bytes = TimerEncoding.encode(timers[start..<end].map(\.timer))
      let name = Array(machine.utf8)
      try bytes.withBytes { (bytes) throws(StoreError) in
        try name.withBytes { (name) throws(StoreError) in
          database.bind(update, 1, blob: bytes)
          database.bind(update, 2, text: name)
          try database.step(update)
        }
      }
      start = end
    }
  }

  /// Calls `body` with a cursor over every row, ordered by name; the rows' bytes are valid
  /// until the cursor moves on.
  func withRows<Result, Failure: Error>(_ body: (inout Rows) throws(Failure) -> Result)
    throws(Failure) -> Result
  {
    var rows = Rows(database: database, statement: selectMachines, path: path)
    defer { database.reset(selectMachines) }
    return try body(&rows)
  }

  /// A read of the rows, one at a time.
  struct Rows {
    fileprivate let database: SQLiteConnection
    fileprivate let statement: SQLiteConnection.Statement
    fileprivate let path: String

    /// The next row (valid until the next call), or nil after the last; throws when SQLite
    /// fails, or when the row's timers do not decode (damage).
    mutating func next() throws(StoreError) -> StoredRow? {
      guard let row = try database.nextRow(statement) else { return nil }
      let timers = SQLiteConnection.bytes(row, 3)
      let stored = StoredRow(
        name: SQLiteConnection.bytes(row, 0), kind: SQLiteConnection.bytes(row, 1),
        state: SQLiteConnection.bytes(row, 2), timers: StoredTimers(timers))
      guard timers.isEmpty || TimerEncoding.isValid(timers) else {
        throw StoreError(
          operation: "read \(path)", code: SQLITE_CORRUPT,
          message: "the timers of machine \(String(decoding: stored.name, as: UTF8.self)) "
            + "do not decode (damaged)")
      }
      return stored
    }
  }

  /// The number of stored machines.
  func count() throws(StoreError) -> Int {
    var count = 0
    try database.run("SELECT count(*) FROM machines") {
      count = Int(SQLiteConnection.integer($0, 0) ?? 0)
    }
    return count
  }

  /// Writes the latest change of each machine among `records` (a journal's header and its
  /// records of the current version) and `epoch` as the last journal applied, in one
  /// transaction, binding the records' bytes in place; rolls it back on failure.
  func apply(journal records: UnsafeRawBufferPointer, epoch: UInt64) throws(StoreError) {
    do {
      try database.run(beginStatement)
      try JournalFormat.forEachLatest(records, byName: true) { (record) throws(StoreError) in
        try apply(record)
      }
      try writeSaves()
      try database.run(updateEpoch, [.integer(Int64(bitPattern: epoch))])
      try database.run(commitStatement)
    } catch {
      saves.removeAll(keepingCapacity: true)
      // A failed statement, or a failed COMMIT, leaves the transaction open.
      _ = try? database.run(rollbackStatement)
      throw error
    }
    appliedEpoch = epoch
  }

  /// Writes `record`: a delete removes the machine's row at once; a save waits in `saves`
  /// until `rowsPerUpsert` of them are written by one statement (each name comes once in a
  /// checkpoint, so the order of the writes does not matter).
  private func apply(_ record: JournalRecord) throws(StoreError) {
    if record.isDelete {
      database.bind(deleteMachine, 1, text: record.name)
      try database.step(deleteMachine)
    } else {
      saves.append(record)
      if saves.count == Self.rowsPerUpsert { try writeSaves() }
    }
  }

  /// Writes the saves waiting in `saves` (inserting or replacing each machine's row, timers
  /// included), binding their bytes in place: all at once when they fill `upsertMany`, else one
  /// by one.
  private func writeSaves() throws(StoreError) {
    defer { saves.removeAll(keepingCapacity: true) }
    if saves.count == Self.rowsPerUpsert {
      for (row, record) in saves.enumerated() { bind(record, to: upsertMany, row: row) }
      try database.step(upsertMany)
    } else {
      for record in saves {
        bind(record, to: upsertOne, row: 0)
        try database.step(upsertOne)
      }
    }
  }

  /// Binds the parts of the save `record` to the parameters of row `row` of an upsert.
  private func bind(_ record: JournalRecord, to statement: SQLiteConnection.Statement, row: Int) {
    let first = Int32(4 * row)
    database.bind(statement, first + 1, text: record.name)
    database.bind(statement, first + 2, text: record.kind)
    database.bind(statement, first + 3, text: record.state)
    database.bind(statement, first + 4, blob: record.timers)
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
