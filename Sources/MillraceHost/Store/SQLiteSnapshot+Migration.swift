import CSQLite
import MillraceWire

extension SQLiteSnapshot {
  /// Creates the tables of a new store, or migrates one of an earlier schema `version`, in one
  /// transaction: 0, the rowid layout (with or without its `remaining_ns` column), gets its
  /// rows and timers folded into a table of one row per machine (version 2's); 0 and 2 get
  /// `checkpoint` (epoch 0: every journal is newer); the table of one row per machine (0, 2
  /// and 3) and the chunks of version 4's image in name order become the image's rows, the
  /// machines taking slots 0, 1, 2, ... in name order; every version before 6 gets the empty
  /// `states` and `stateNames`. Then sets the page size (`VACUUM`,
  /// outside the write-ahead log) when the file has another.
  static func createOrMigrate(
    _ database: SQLiteConnection, from version: Int, tables: Set<String>
  ) throws(StoreError) {
    try database.execute("BEGIN IMMEDIATE")
    do {
      if version < 5 { try writeImage(database, from: version, tables: tables) }
      try database.execute(
        """
        CREATE TABLE states(id INTEGER PRIMARY KEY, body BLOB NOT NULL);
        CREATE TABLE stateNames(id INTEGER PRIMARY KEY, text BLOB NOT NULL);
        """)
      try database.execute("PRAGMA user_version=\(schemaVersion); COMMIT;")
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

  /// Migrates a store of a schema before 5 to the image's rows (`createOrMigrate`), inside its
  /// transaction.
  private static func writeImage(
    _ database: SQLiteConnection, from version: Int, tables: Set<String>
  ) throws(StoreError) {
    var hasRows = tables.contains("machines")
    if version < 2 {
      try database.execute(
        """
        CREATE TABLE machines_v2(
          name TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, timers BLOB
        ) WITHOUT ROWID;
        """)
      if hasRows {
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
      hasRows = true
    }
    try database.execute(
      """
      CREATE TABLE IF NOT EXISTS checkpoint(epoch INTEGER NOT NULL);
      INSERT INTO checkpoint SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM checkpoint);
      CREATE TABLE rows(id INTEGER PRIMARY KEY, machines INTEGER NOT NULL, body BLOB NOT NULL);
      """)
    if hasRows {
      try writeRows(fromRowsOf: database)
      try database.execute("DROP TABLE machines")
    }
    if tables.contains("chunks") {
      try writeRows(fromChunksOf: database)
      try database.execute("DROP TABLE chunks")
    }
  }

  /// Writes the rows of the table of one row per machine (`machines(name, kind, state,
  /// timers)`) as the image's rows, in name order.
  private static func writeRows(fromRowsOf database: SQLiteConnection) throws(StoreError) {
    let select = try database.prepare(
      "SELECT name, kind, state, timers FROM machines ORDER BY name")
    // Reset before the table is dropped: a statement still reading it would refuse the drop.
    defer { database.reset(select) }
    var writer = try SequentialRows(database)
    while let row = try database.nextRow(select) {
      try writer.append(
        ImageChunk.Entry(
          name: SQLiteConnection.bytes(row, 0), kind: SQLiteConnection.bytes(row, 1),
          state: SQLiteConnection.bytes(row, 2), timers: SQLiteConnection.bytes(row, 3)))
    }
    try writer.finish()
  }

  /// Writes the machines of version 4's chunks, in name order (the chunks ordered by their
  /// first names), as the image's rows. A chunk that does not decode fails the migration.
  private static func writeRows(fromChunksOf database: SQLiteConnection) throws(StoreError) {
    let select = try database.prepare("SELECT id, body FROM chunks ORDER BY low")
    defer { database.reset(select) }
    var writer = try SequentialRows(database)
    while let row = try database.nextRow(select) {
      var reader = ImageChunk.Reader(SQLiteConnection.bytes(row, 1))
      while let machine = reader.nextEncoded() { try writer.append(machine.bytes) }
      guard !reader.isDamaged else {
        throw StoreError(
          operation: "migrate the image", code: SQLITE_CORRUPT,
          message: "chunk \(SQLiteConnection.integer(row, 0) ?? 0) does not decode (damaged)")
      }
    }
    try writer.finish()
  }

  /// Writes machines as the image's rows, each in the slot after the one before, from 0.
  private struct SequentialRows {
    let database: SQLiteConnection
    let insert: SQLiteConnection.Statement
    let body = ByteBuffer()
    var slot: UInt32 = 0
    var machines = 0

    init(_ database: SQLiteConnection) throws(StoreError) {
      self.database = database
      insert = try database.prepare(SQLiteSnapshot.insertRowSQL)
    }

    /// Adds the machine whose bytes (as a chunk holds it) are `machine`, in the next slot.
    mutating func append(_ machine: UnsafeRawBufferPointer) throws(StoreError) {
      ImageRow.append(cell: ImageRow.cell(of: slot), machine: machine, to: body)
      try added()
    }

    /// Adds `machine`, from its parts, in the next slot.
    mutating func append(_ machine: ImageChunk.Entry) throws(StoreError) {
      ImageRow.appendCell(ImageRow.cell(of: slot), to: body)
      ImageChunk.append(machine, to: body)
      try added()
    }

    /// Counts the machine just appended; writes the row once it is full.
    private mutating func added() throws(StoreError) {
      machines += 1
      slot += 1
      if ImageRow.cell(of: slot) == 0 { try finish() }
    }

    /// Writes the row being filled, if it holds a machine.
    mutating func finish() throws(StoreError) {
      guard machines > 0 else { return }
      let (database, insert, count) = (database, insert, machines)
      let row = ImageRow.row(of: slot &- 1)
      try body.withUnsafeBytes { bytes in
        database.bind(insert, 1, integer: Int64(row))
        database.bind(insert, 2, integer: Int64(count))
        database.bind(insert, 3, blob: bytes)
        return Result { () throws(StoreError) in _ = try database.step(insert) }
      }.get()
      body.removeAll(keepingCapacityUpTo: .max)
      machines = 0
    }
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
}
