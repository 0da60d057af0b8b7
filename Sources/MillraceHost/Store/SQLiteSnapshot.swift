import CSQLite

/// The store's snapshot: machine names, kinds, states and pending timers in SQLite (WAL),
/// `machines.sqlite3` under the data directory. `MachineStore` writes into it at checkpoints,
/// many turns' changes in one transaction. Single-threaded.
final class SQLiteSnapshot {
  private let database: SQLiteConnection
  private var inTransaction = false
  /// The statements every checkpoint runs, prepared once.
  private let beginStatement, commitStatement, rollbackStatement: SQLiteConnection.Statement
  private let updateMachine, insertMachine, deleteMachine: SQLiteConnection.Statement
  private let deleteTimers, insertTimer: SQLiteConnection.Statement
  /// The machines that may have rows in `timers`, a superset: a name is added before its rows
  /// are inserted and removed only once a commit deleted them. `save` skips the timers `DELETE`
  /// for the other machines, the common case of a machine that never had a pending timer.
  private var mayHaveTimers: Set<String> = []
  /// Names whose timer rows the open transaction deleted (and did not insert again).
  private var timersDeleted: Set<String> = []

  /// Opens or creates `machines.sqlite3` in `directory` (which must exist).
  ///
  /// The connection holds the database's lock for its lifetime (`locking_mode=EXCLUSIVE`):
  /// the daemon is the store's only user, and a WAL transaction then takes no file lock and
  /// touches no shared-memory index. New databases get 1 KiB pages: a commit writes each
  /// changed page to the WAL, and a machine's row is small.
  init(directory: String, durability: Durability) throws(StoreError) {
    database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    try database.execute(
      """
      PRAGMA locking_mode=EXCLUSIVE;
      PRAGMA page_size=1024;
      PRAGMA journal_mode=WAL;
      PRAGMA synchronous=\(durability == .strict ? "FULL" : "NORMAL");
      PRAGMA busy_timeout=2000;
      CREATE TABLE IF NOT EXISTS machines(
        name TEXT PRIMARY KEY, kind TEXT NOT NULL, state TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS timers(
        machine TEXT NOT NULL, position INTEGER NOT NULL, input TEXT NOT NULL,
        repeats INTEGER NOT NULL, span_ns INTEGER NOT NULL, deadline_ns INTEGER,
        queue INTEGER NOT NULL, effect_id INTEGER NOT NULL, remaining_ns INTEGER,
        PRIMARY KEY(machine, position));
      """)
    // Stores made before `remaining_ns` existed get the column (NULL: not known).
    var hasRemaining = false
    try database.run("PRAGMA table_info(timers)") { row in
      if SQLiteConnection.text(row, 1) == "remaining_ns" { hasRemaining = true }
    }
    if !hasRemaining { try database.execute("ALTER TABLE timers ADD COLUMN remaining_ns INTEGER") }
    beginStatement = try database.prepare("BEGIN")
    commitStatement = try database.prepare("COMMIT")
    rollbackStatement = try database.prepare("ROLLBACK")
    // A machine's row is updated in place, the name index untouched (INSERT OR REPLACE would
    // delete and re-insert it: two pages per commit instead of one); an upsert costs more
    // than this update for the common case, a row that exists.
    updateMachine = try database.prepare("UPDATE machines SET kind = ?, state = ? WHERE name = ?")
    insertMachine = try database.prepare("INSERT INTO machines(name, kind, state) VALUES(?, ?, ?)")
    deleteMachine = try database.prepare("DELETE FROM machines WHERE name = ?")
    deleteTimers = try database.prepare("DELETE FROM timers WHERE machine = ?")
    insertTimer = try database.prepare(
      """
      INSERT INTO timers(machine, position, input, repeats, span_ns, deadline_ns, queue,
        effect_id, remaining_ns) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    try database.run("SELECT DISTINCT machine FROM timers") { row in
      mayHaveTimers.insert(SQLiteConnection.text(row, 0))
    }
  }

  /// Every stored machine with its timers, ordered by name.
  func loadAll() throws(StoreError) -> [StoredMachine] {
    var machines: [StoredMachine] = []
    var positions: [String: Int] = [:]
    try database.run("SELECT name, kind, state FROM machines ORDER BY name") { row in
      let name = SQLiteConnection.text(row, 0)
      positions[name] = machines.count
      machines.append(
        StoredMachine(
          name: name, kind: SQLiteConnection.text(row, 1), state: SQLiteConnection.text(row, 2)))
    }
    try database.run(
      """
      SELECT machine, input, repeats, span_ns, deadline_ns, queue, effect_id, remaining_ns
      FROM timers ORDER BY machine, position
      """
    ) { row in
      guard let index = positions[SQLiteConnection.text(row, 0)] else { return }
      machines[index].timers.append(
        StoredTimer(
          input: SQLiteConnection.text(row, 1),
          repeats: SQLiteConnection.integer(row, 2) != 0,
          spanNanoseconds: SQLiteConnection.integer(row, 3) ?? 0,
          deadlineWallNanoseconds: SQLiteConnection.integer(row, 4),
          remainingNanoseconds: SQLiteConnection.integer(row, 7),
          queue: UInt8(truncatingIfNeeded: SQLiteConnection.integer(row, 5) ?? 0),
          effectID: UInt64(bitPattern: SQLiteConnection.integer(row, 6) ?? 0)))
    }
    return machines
  }

  /// Starts a transaction (idempotent).
  func begin() throws(StoreError) {
    guard !inTransaction else { return }
    try database.run(beginStatement)
    inTransaction = true
  }

  /// Writes (inserts or replaces) a machine and its timers.
  func save(_ machine: StoredMachine) throws(StoreError) {
    try begin()
    let updated = try database.run(
      updateMachine, [.text(machine.kind), .text(machine.state), .text(machine.name)])
    if updated == 0 {
      try database.run(
        insertMachine, [.text(machine.name), .text(machine.kind), .text(machine.state)])
    }
    if mayHaveTimers.contains(machine.name) {
      try database.run(deleteTimers, [.text(machine.name)])
      timersDeleted.insert(machine.name)
    }
    guard !machine.timers.isEmpty else { return }
    mayHaveTimers.insert(machine.name)
    timersDeleted.remove(machine.name)
    for (position, timer) in machine.timers.enumerated() {
      try database.run(
        insertTimer,
        [
          .text(machine.name), .integer(Int64(position)), .text(timer.input),
          .integer(timer.repeats ? 1 : 0), .integer(timer.spanNanoseconds),
          timer.deadlineWallNanoseconds.map { .integer($0) } ?? .null,
          .integer(Int64(timer.queue)), .integer(Int64(bitPattern: timer.effectID)),
          timer.remainingNanoseconds.map { .integer($0) } ?? .null,
        ])
    }
  }

  /// Deletes a machine and its timers.
  func delete(name: String) throws(StoreError) {
    try begin()
    try database.run(deleteMachine, [.text(name)])
    try database.run(deleteTimers, [.text(name)])
    if mayHaveTimers.contains(name) { timersDeleted.insert(name) }
  }

  /// Commits the transaction; when it returns, the changes are durable to the level of the
  /// durability it was opened with.
  func commit() throws(StoreError) {
    guard inTransaction else { return }
    inTransaction = false
    let deleted = timersDeleted
    timersDeleted.removeAll(keepingCapacity: true)
    try database.run(commitStatement)
    if !deleted.isEmpty { mayHaveTimers.subtract(deleted) }
  }

  /// Abandons the open transaction, if any (after a failed save or commit: a failed COMMIT
  /// leaves SQLite's transaction open although `commit` marked it closed).
  func rollback() {
    inTransaction = false
    timersDeleted.removeAll(keepingCapacity: true)
    _ = try? database.run(rollbackStatement)
  }
}
