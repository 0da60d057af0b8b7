import CSQLite
import MillraceWire

/// One checkpoint's rewrite of the image, inside the snapshot's open transaction: the latest
/// record of each machine arrives in name order (`take`), and only the chunks records fall in
/// are rewritten. A record falls in the last chunk whose first name is not after its own, or in
/// the first chunk. A chunk no record falls in stays as it is; a run of chunks that records fall
/// in is read and written again as one stream of machines merged with the records (a save
/// takes the place of the machine of its name, a delete leaves it out), cut anew into chunks of
/// about `ImageChunk.targetBytes`, so that chunks shrunk by deletes are joined with their
/// neighbours in the run. The chunks written take the rows of the chunks read first
/// (`ImageWriter.reuse`); rows none took are deleted.
///
/// Memory: one chunk's body read, one being written; no list of the records.
struct ImageMerge {
  private let snapshot: SQLiteSnapshot
  /// The image's chunks before the checkpoint.
  private let chunks: [SQLiteSnapshot.Chunk]
  private var writer: ImageWriter
  /// The image's chunks after it, so far.
  private var result: [SQLiteSnapshot.Chunk] = []
  /// The chunk records fall in now.
  private var index = 0
  /// Its machines not written yet, once a record fell in it (read from the snapshot's
  /// `oldBody`), and the next of them.
  private var reader: ImageChunk.Reader?
  private var held: (name: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer)?

  init(_ snapshot: SQLiteSnapshot) throws(StoreError) {
    self.snapshot = snapshot
    chunks = snapshot.chunks
    writer = try ImageWriter(
      database: snapshot.database, body: snapshot.newBody, nextID: snapshot.nextID)
    result.reserveCapacity(chunks.count + 16)
  }

  /// Merges `change`, whose name comes after every name taken before.
  mutating func take(_ change: JournalRecord) throws(StoreError) {
    while index + 1 < chunks.count,
      chunks[index + 1].low.withUnsafeBytes({ ImageChunk.compare($0, change.name) <= 0 })
    {
      try leave()
      index += 1
    }
    if reader == nil, !chunks.isEmpty { try open() }
    while let machine = held {
      let order = ImageChunk.compare(machine.name, change.name)
      guard order < 0 else {
        if order == 0 { held = reader!.nextEncoded() }
        break
      }
      try writer.append(machine.bytes, named: machine.name, to: &result)
      held = reader!.nextEncoded()
    }
    if !change.isDelete { try writer.append(change.encoded, named: change.name, to: &result) }
  }

  /// Ends the merge; returns the image's chunks after it.
  mutating func finish() throws(StoreError) -> [SQLiteSnapshot.Chunk] {
    while index < chunks.count {
      try leave()
      index += 1
    }
    try writer.finish(to: &result)
    // Rows of chunks joined with their neighbours: no chunk took them.
    for id in writer.unused {
      snapshot.database.bind(snapshot.deleteChunk, 1, integer: id)
      try snapshot.database.step(snapshot.deleteChunk)
    }
    snapshot.nextID = writer.nextID
    return result
  }

  /// Reads the chunk records fall in now and hands its row to the writer: its machines are
  /// written again.
  private mutating func open() throws(StoreError) {
    let id = chunks[index].id
    // Copied out before the row is written over: the chunks written next take it.
    let old = snapshot.holdOldBody(try snapshot.body(of: id))
    snapshot.database.reset(snapshot.selectBody)
    writer.reuse(id)
    reader = ImageChunk.Reader(old)
    held = reader!.nextEncoded()
  }

  /// Ends the chunk records fell in until now: writes the rest of its machines, or, when no
  /// record fell in it, ends the run of chunks being written and keeps it as it is.
  private mutating func leave() throws(StoreError) {
    guard reader != nil else {
      try writer.finish(to: &result)
      result.append(chunks[index])
      return
    }
    while let machine = held {
      try writer.append(machine.bytes, named: machine.name, to: &result)
      held = reader!.nextEncoded()
    }
    if reader!.isDamaged {
      throw snapshot.damage("chunk \(chunks[index].id) does not decode (damaged)")
    }
    reader = nil
  }
}

/// Writes machines, given in name order, as new chunks of the image: a chunk is written once it
/// reaches `ImageChunk.targetBytes`, and by `finish`; into a row handed to `reuse` while there is
/// one, else into a new row.
///
/// A row written over keeps its page: SQLite deletes a row of a whole page's size by freeing the
/// page and balancing the tree's leaves around it, which cost a rewrite of a million machines'
/// image more than a fifth of its instructions.
struct ImageWriter {
  private let database: SQLiteConnection
  /// `SQLiteSnapshot.insertChunkSQL`, prepared.
  private let insert: SQLiteConnection.Statement
  /// `updateChunkSQL`, prepared.
  private let update: SQLiteConnection.Statement
  /// Rows of chunks read and not yet written over, in the order handed over, from `nextReused`.
  private var reused: [Int64] = []
  private var nextReused = 0
  /// The body being written.
  private let body: ByteBuffer
  /// The id the next chunk written takes.
  private(set) var nextID: Int64
  private var machines = 0
  private var low: [UInt8] = []

  init(database: SQLiteConnection, body: ByteBuffer, nextID: Int64) throws(StoreError) {
    self.database = database
    insert = try database.prepare(SQLiteSnapshot.insertChunkSQL)
    update = try database.prepare(Self.updateChunkSQL)
    self.body = body
    self.nextID = nextID
    body.removeAll(keepingCapacityUpTo: .max)
  }

  /// Adds `machine` to the chunk being written; writes the chunk (appending its row to
  /// `result`) when it is full.
  mutating func append(_ machine: ImageChunk.Entry, to result: inout [SQLiteSnapshot.Chunk])
    throws(StoreError)
  {
    if machines == 0 { low = Array(machine.name) }
    ImageChunk.append(machine, to: body)
    try added(to: &result)
  }

  /// Adds the machine named `name` whose bytes in a chunk are `bytes` (read from one:
  /// `ImageChunk.Reader.nextEncoded`), copied as they are; writes the chunk when it is full.
  mutating func append(
    _ bytes: UnsafeRawBufferPointer, named name: UnsafeRawBufferPointer,
    to result: inout [SQLiteSnapshot.Chunk]
  ) throws(StoreError) {
    if machines == 0 { low = Array(name) }
    body.append(bytes)
    try added(to: &result)
  }

  /// Counts the machine just appended; writes the chunk when it is full.
  @inline(__always)
  private mutating func added(to result: inout [SQLiteSnapshot.Chunk]) throws(StoreError) {
    machines += 1
    if body.count >= ImageChunk.targetBytes { try finish(to: &result) }
  }

  /// The statement that writes over a chunk's row: first name, machines, body, id.
  static let updateChunkSQL = "UPDATE chunks SET low = ?, machines = ?, body = ? WHERE id = ?"

  /// Hands the row `id`, whose chunk was read (its body is held elsewhere), to the chunks
  /// written next.
  mutating func reuse(_ id: Int64) { reused.append(id) }

  /// The rows handed to `reuse` that no chunk took: the caller deletes them.
  var unused: ArraySlice<Int64> { reused[nextReused...] }

  /// Writes the chunk being written, if it holds any machine, appending its row to `result`.
  mutating func finish(to result: inout [SQLiteSnapshot.Chunk]) throws(StoreError) {
    guard machines > 0 else { return }
    let reusing = nextReused < reused.count
    let id = reusing ? reused[nextReused] : nextID
    let (database, statement, machines) = (database, reusing ? update : insert, machines)
    // The insert binds the id first, the update last.
    let (idColumn, firstColumn): (Int32, Int32) = reusing ? (4, 1) : (1, 2)
    let changed = try low.withBytes { (low) throws(StoreError) in
      try body.withUnsafeBytes { body in
        database.bind(statement, idColumn, integer: id)
        database.bind(statement, firstColumn, blob: low)
        database.bind(statement, firstColumn + 1, integer: Int64(machines))
        database.bind(statement, firstColumn + 2, blob: body)
        return Result { () throws(StoreError) in try database.step(statement) }
      }.get()
    }
    guard changed == 1 else {
      throw StoreError(
        operation: "write chunk \(id)", code: SQLITE_CORRUPT, message: "its row is missing")
    }
    if reusing { nextReused += 1 } else { nextID += 1 }
    result.append(SQLiteSnapshot.Chunk(id: id, low: low, machines: machines))
    body.removeAll(keepingCapacityUpTo: .max)
    self.machines = 0
  }
}
