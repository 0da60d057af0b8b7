import CSQLite

/// The store's snapshot: machine names, kinds, states and pending timers in SQLite (WAL),
/// `machines.sqlite3` under the data directory, one row per machine in
/// `machines(name TEXT PRIMARY KEY, kind, state, timers BLOB) WITHOUT ROWID`: the name is
/// stored once (the table is its own index), and the timers are the row's BLOB in their
/// compact form (`TimerEncoding`), NULL for none. `MachineStore` writes into it at
/// checkpoints, many turns' changes in one transaction, binding the journal's bytes in place.
/// Single-threaded.
///
/// A store made before this layout (schema version 0: a rowid `machines` table with a unique
/// name index, and a `timers` table of one row per timer) is migrated when opened, in one
/// transaction, then rewritten with this layout's page size (`VACUUM`).
final class SQLiteSnapshot {
  private let database: SQLiteConnection
  private let path: String
  private var inTransaction = false
  /// The statements every checkpoint or read runs, prepared once.
  private let beginStatement, commitStatement, rollbackStatement: SQLiteConnection.Statement
  private let upsertMachine, deleteMachine, selectMachines: SQLiteConnection.Statement

  /// The schema version (`PRAGMA user_version`) of this layout.
  static let schemaVersion = 2
  /// The page size of a new (or migrated) database.
  static let pageSize = 4096

  /// Opens or creates `machines.sqlite3` in `directory` (which must exist), migrating a store
  /// of the earlier layout.
  ///
  /// The connection holds the database's lock for its lifetime (`locking_mode=EXCLUSIVE`):
  /// the daemon is the store's only user, and a WAL transaction then takes no file lock and
  /// touches no shared-memory index.
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
      try Self.createOrMigrate(database, tables: tables)
    }
    beginStatement = try database.prepare("BEGIN")
    commitStatement = try database.prepare("COMMIT")
    rollbackStatement = try database.prepare("ROLLBACK")
    // One seek for an insert and an update alike (an UPDATE first, then an INSERT when it
    // changed nothing, takes two for a new machine); REPLACE would delete and re-insert.
    upsertMachine = try database.prepare(
      """
      INSERT INTO machines(name, kind, state, timers) VALUES(?1, ?2, ?3, ?4)
      ON CONFLICT(name) DO UPDATE SET kind = ?2, state = ?3, timers = ?4
      """)
    deleteMachine = try database.prepare("DELETE FROM machines WHERE name = ?")
    selectMachines = try database.prepare("SELECT name, kind, state, timers FROM machines")
  }

  /// Creates the table of a new store, or migrates one of the earlier layout (with or without
  /// its `remaining_ns` column), in one transaction; then sets the page size (`VACUUM`, outside
  /// the write-ahead log) when the file has another.
  private static func createOrMigrate(_ database: SQLiteConnection, tables: Set<String>)
    throws(StoreError)
  {
    try database.execute("BEGIN IMMEDIATE")
    do {
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
      try database.execute(
        """
        ALTER TABLE machines_v2 RENAME TO machines;
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

  /// Starts a transaction (idempotent).
  func begin() throws(StoreError) {
    guard !inTransaction else { return }
    try database.run(beginStatement)
    inTransaction = true
  }

  /// Writes `record` (a save inserts or replaces the machine's row, timers included; a delete
  /// removes it), binding its bytes in place.
  func apply(_ record: JournalRecord) throws(StoreError) {
    try begin()
    if record.isDelete {
      database.bind(deleteMachine, 1, text: record.name)
      try database.step(deleteMachine)
    } else {
      database.bind(upsertMachine, 1, text: record.name)
      database.bind(upsertMachine, 2, text: record.kind)
      database.bind(upsertMachine, 3, text: record.state)
      database.bind(upsertMachine, 4, blob: record.timers)
      try database.step(upsertMachine)
    }
  }

  /// Commits the transaction; when it returns, the changes are durable to the level of the
  /// durability it was opened with.
  func commit() throws(StoreError) {
    guard inTransaction else { return }
    inTransaction = false
    try database.run(commitStatement)
  }

  /// Abandons the open transaction, if any (after a failed save or commit: a failed COMMIT
  /// leaves SQLite's transaction open although `commit` marked it closed).
  func rollback() {
    inTransaction = false
    _ = try? database.run(rollbackStatement)
  }

  /// Copies the write-ahead log into the database file and empties it (`wal_checkpoint
  /// (TRUNCATE)`): the snapshot is then whole in `machines.sqlite3`, its `-wal` of size 0.
  func mergeLog() throws(StoreError) {
    try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  }
}
