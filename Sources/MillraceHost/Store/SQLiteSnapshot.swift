import CSQLite
import MillraceWire

/// The store's snapshot: machine names, kinds, states and pending timers in SQLite (WAL),
/// `machines.sqlite3` under the data directory, as an *image*: the machines in the order of
/// their names, cut into chunks of about `ImageChunk.targetBytes`, one row each in
/// `chunks(id INTEGER PRIMARY KEY, low BLOB, machines INTEGER, body BLOB)` (`low` is the chunk's
/// first name, `body` its machines in `ImageChunk`'s form); and `checkpoint(epoch)`, one row: the
/// epoch of the last journal whose records are in. `MachineStore` writes into it at
/// checkpoints, a journal's records in one transaction.
///
/// A checkpoint rewrites the chunks its records fall in, each whole, and only those: its cost
/// is that of merging sorted records into sorted bytes, at most the image's size however
/// scattered the changes are, with no B-tree search per machine (a row per machine cost a
/// random page write per change at a million machines). The chunks' rows (not their bodies)
/// are kept in memory, in name order, to find a record's chunk.
///
/// Used by one thread at a time (the loop, or the store's checkpoint worker while it runs a
/// job); SQLite's connection is opened without its own mutex.
///
/// A store of an earlier layout (schema version 0: a rowid `machines` table and a `timers`
/// table; 2: a `machines` table of one row per machine without `checkpoint`; 3: the same with
/// it) is migrated when opened, in one transaction, then rewritten with this layout's page size
/// (`VACUUM`) if it has another (`SQLiteSnapshot+Migration.swift`).
final class SQLiteSnapshot {
  let database: SQLiteConnection
  let path: String
  /// The statements every checkpoint or read runs, prepared once.
  private let beginStatement, commitStatement, rollbackStatement: SQLiteConnection.Statement
  let selectBody, deleteChunk: SQLiteConnection.Statement
  private let updateEpoch: SQLiteConnection.Statement
  /// The image's chunks, in name order.
  private(set) var chunks: [Chunk]
  /// The id the next chunk written takes (`ImageWriter`).
  var nextID: Int64
  /// A chunk's body read for a checkpoint (its row is deleted before the chunks that replace
  /// it are written: `holdOldBody`), and the body being written.
  private var oldBody = UnsafeMutableRawBufferPointer(start: nil, count: 0)
  let newBody = ByteBuffer(capacity: 2 * ImageChunk.targetBytes)
  /// Tests only: runs (on the thread that applies) as a checkpoint's merge begins, once its
  /// first record goes to the image, where it can no longer be abandoned.
  var mergeHook: (@Sendable () -> Void)?

  /// One chunk's row, without its body.
  struct Chunk {
    var id: Int64
    /// Its first machine's name.
    var low: [UInt8]
    /// Its machines.
    var machines: Int
  }

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
  static let schemaVersion = 4
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
    selectBody = try database.prepare("SELECT body FROM chunks WHERE id = ?")
    deleteChunk = try database.prepare("DELETE FROM chunks WHERE id = ?")
    updateEpoch = try database.prepare("UPDATE checkpoint SET epoch = ?")
    var epoch: UInt64 = 0
    try database.run("SELECT epoch FROM checkpoint") {
      epoch = UInt64(bitPattern: SQLiteConnection.integer($0, 0) ?? 0)
    }
    var chunks: [Chunk] = []
    try database.run("SELECT id, low, machines FROM chunks") { row in
      chunks.append(
        Chunk(
          id: SQLiteConnection.integer(row, 0) ?? 0, low: Array(SQLiteConnection.bytes(row, 1)),
          machines: Int(SQLiteConnection.integer(row, 2) ?? 0)))
    }
    chunks.sort { left, right in
      left.low.withUnsafeBytes { left in
        right.low.withUnsafeBytes { right in ImageChunk.compare(left, right) < 0 }
      }
    }
    self.chunks = chunks
    nextID = (chunks.map(\.id).max() ?? 0) + 1
    appliedEpoch = epoch
    measure()
  }

  deinit {
    if oldBody.baseAddress != nil { oldBody.deallocate() }
  }

  /// The statement that writes a chunk: id, first name, machines, body.
  static let insertChunkSQL = "INSERT INTO chunks(id, low, machines, body) VALUES (?, ?, ?, ?)"

  /// Calls `body` with a cursor over every machine, ordered by name; the rows' bytes are valid
  /// until the cursor moves on.
  func withRows<Result, Failure: Error>(_ body: (inout Rows) throws(Failure) -> Result)
    throws(Failure) -> Result
  {
    var rows = Rows(snapshot: self, chunks: chunks)
    defer { database.reset(selectBody) }
    return try body(&rows)
  }

  /// A read of the machines, one at a time, a chunk's body read in place.
  struct Rows {
    fileprivate let snapshot: SQLiteSnapshot
    fileprivate let chunks: [Chunk]
    private var chunkIndex = 0
    private var reader: ImageChunk.Reader?

    fileprivate init(snapshot: SQLiteSnapshot, chunks: [Chunk]) {
      self.snapshot = snapshot
      self.chunks = chunks
    }

    /// The next row (valid until the next call), or nil after the last; throws when SQLite
    /// fails, or when a chunk or a machine's timers do not decode (damage).
    mutating func next() throws(StoreError) -> StoredRow? {
      while true {
        if reader != nil, let entry = reader!.next() {
          guard entry.timers.isEmpty || TimerEncoding.isValid(entry.timers) else {
            throw snapshot.damage(
              "the timers of machine \(String(decoding: entry.name, as: UTF8.self)) "
                + "do not decode (damaged)")
          }
          return entry.row
        }
        if let reader, reader.isDamaged {
          throw snapshot.damage("chunk \(chunks[chunkIndex - 1].id) does not decode (damaged)")
        }
        guard chunkIndex < chunks.count else { return nil }
        reader = ImageChunk.Reader(try snapshot.body(of: chunks[chunkIndex].id))
        chunkIndex += 1
      }
    }
  }

  /// The body of chunk `id`, in place: valid until `selectBody` is run again or reset.
  func body(of id: Int64) throws(StoreError) -> UnsafeRawBufferPointer {
    database.reset(selectBody)
    database.bind(selectBody, 1, integer: id)
    guard let row = try database.nextRow(selectBody) else {
      throw damage("chunk \(id) is missing (damaged)")
    }
    return SQLiteConnection.bytes(row, 0)
  }

  /// Copies `body` (a chunk's, read in place) into `oldBody` and returns the copy: valid until
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

  /// The number of stored machines: the sum of the chunks' counts.
  func count() -> Int { chunks.reduce(0) { $0 + $1.machines } }

  /// Writes the latest change of each machine among `records` (a journal's header and its
  /// records of the current version) and `epoch` as the last journal applied, in one
  /// transaction (`ImageMerge`); rolls it back on failure. When `abandoned` returns true
  /// before the merge begins (asked as `JournalFormat.forEachLatest` says), stops, rolls back
  /// and throws `StoreError.abandonedCheckpoint`: the snapshot is as it was before.
  func apply(
    journal records: UnsafeRawBufferPointer, epoch: UInt64, abandoned: (() -> Bool)? = nil
  ) throws(StoreError) {
    do throws(StoreError) {
      try database.run(beginStatement)
      var merge = try ImageMerge(self)
      var hook = mergeHook
      let whole = try JournalFormat.forEachLatest(
        records, byName: true, expectedNames: count(), abandoned: abandoned
      ) { (record) throws(StoreError) in
        if let begins = hook {
          hook = nil
          begins()
        }
        try merge.take(record)
      }
      guard whole else { throw .abandonedCheckpoint }
      let rewritten = try merge.finish()
      try database.run(updateEpoch, [.integer(Int64(bitPattern: epoch))])
      try database.run(commitStatement)
      chunks = rewritten
      measure()
    } catch {
      // A failed statement, or a failed COMMIT, leaves the transaction open.
      _ = try? database.run(rollbackStatement)
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
