import CPrefetch

#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// A checkpoint's changes to an image indexed by store slot (`ImageRow`), grouped by row: the
/// records of a journal of the version written (`JournalFormat`), each a save that puts its
/// machine in its slot or a delete that empties it.
///
/// Made in two passes over the journal, a counting sort: the first checks each record's shape
/// and counts the records of each row, the second lists each record's offset under its row, in
/// journal order. `rewrite` then builds a row from its old body and its records, the latest
/// change of a slot winning. No name is hashed, sorted or compared: a slot freed and taken again
/// ends up holding what its last change says.
///
/// Memory: 4 bytes a record and 8 a row, and 16 bytes a cell of one row, freed with it. The
/// records themselves stay in the journal, which must outlive this.
struct RowChanges: ~Copyable {
  /// The journal: its header and its records, each whole (written by this process, or found
  /// whole when it was opened).
  let journal: UnsafeRawBufferPointer
  /// The records' offsets in `journal`, grouped by row, in journal order within each.
  private let offsets: UnsafeMutablePointer<UInt32>
  /// Where each row's records start in `offsets` (`rows + 1` entries).
  private let starts: UnsafeMutablePointer<Int>
  /// One past the highest row a record falls in.
  private let rows: Int
  /// The records read.
  let count: Int
  /// A row's cells while it is rewritten: each cell's machine, nil for an empty one.
  private let cells: UnsafeMutablePointer<UnsafeRawBufferPointer?>

  /// Why a journal cannot be read as changes by slot.
  enum Failure: Error, Equatable {
    /// `abandoned` returned true.
    case abandoned
    /// The record at this offset has no slot (`JournalFormat.noSlot`) or no known tag.
    case unslotted(offset: Int)
  }

  /// The records of `journal` (under 4 GiB), read up to the first that does not fit, grouped
  /// by row; `abandoned` is asked every 1,024 records of the first pass and once after it.
  init(journal: UnsafeRawBufferPointer, abandoned: (() -> Bool)? = nil) throws(Failure) {
    precondition(journal.count <= Int(UInt32.max), "a journal of 4 GiB or more")
    self.journal = journal
    var perRow: [Int] = []
    var count = 0
    var offset = JournalFormat.headerSize
    while let record = Self.record(in: journal, at: offset) {
      guard record.slot != JournalFormat.noSlot, record.tag == 1 || record.tag == 2 else {
        throw .unslotted(offset: offset)
      }
      let row = ImageRow.row(of: record.slot)
      if row >= perRow.count { perRow += repeatElement(0, count: row + 1 - perRow.count) }
      perRow[row] &+= 1
      count &+= 1
      offset = record.next
      if count & 1023 == 0 {
        SharedCPU.yield()
        if let abandoned, abandoned() { throw .abandoned }
      }
    }
    if let abandoned, abandoned() { throw .abandoned }
    rows = perRow.count
    self.count = count
    starts = .allocate(capacity: rows + 1)
    starts[0] = 0
    for row in 0..<rows { starts[row + 1] = starts[row] &+ perRow[row] }
    // Each row's next free place, in memory of its own: an array written a million times
    // checks its uniqueness and bounds every time.
    let next = UnsafeMutablePointer<Int>.allocate(capacity: max(rows, 1))
    defer { next.deallocate() }
    next.initialize(from: starts, count: rows)
    offsets = .allocate(capacity: max(count, 1))
    offset = JournalFormat.headerSize
    for index in 0..<count {
      let record = Self.record(in: journal, at: offset).unsafelyUnwrapped
      let row = ImageRow.row(of: record.slot)
      offsets[next[row]] = UInt32(truncatingIfNeeded: offset)
      next[row] &+= 1
      offset = record.next
      if index & 4095 == 0 { SharedCPU.yield() }
    }
    cells = .allocate(capacity: ImageRow.slotsPerRow)
  }

  deinit {
    offsets.deallocate()
    starts.deallocate()
    cells.deallocate()
  }

  /// The record at `offset` of `journal`: its tag, slot, where its machine (a save's) starts
  /// and how many bytes it takes, and where the next record starts; nil when no record fits
  /// there (the end of the records).
  @inline(__always)
  private static func record(in journal: UnsafeRawBufferPointer, at offset: Int) -> (
    tag: UInt8, slot: UInt32, machine: Int, machineCount: Int, next: Int
  )? {
    guard journal.count &- offset >= JournalFormat.recordHeaderSize else { return nil }
    let length = Int(
      UInt32(littleEndian: journal.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    let payload = offset &+ JournalFormat.recordHeaderSize
    guard length > JournalFormat.slotSize, length <= journal.count &- payload else { return nil }
    let end = payload &+ length &- JournalFormat.slotSize
    let slot = UInt32(littleEndian: journal.loadUnaligned(fromByteOffset: end, as: UInt32.self))
    return (journal[payload], slot, payload &+ 1, end &- payload &- 1, payload &+ length)
  }

  /// Calls `body` with each row some record falls in, in ascending order.
  func forEachRow<Failure: Error>(_ body: (Int) throws(Failure) -> Void) throws(Failure) {
    for row in 0..<rows where starts[row + 1] > starts[row] { try body(row) }
  }

  /// How many records ahead of the one it applies `rewrite` warms the cache for.
  static let prefetchDistance = 16

  /// Writes row `row`'s new body into `body` (emptied first): the machines of `old` (its body
  /// before this checkpoint, empty for a row not yet written) with the row's records applied
  /// in the order they were journaled, in slot order. Returns how many machines it holds (0:
  /// the row is to be deleted), or nil when `old` does not decode, or holds a cell at or past
  /// the row's end: damage.
  func rewrite(_ row: Int, old: UnsafeRawBufferPointer, into body: ByteBuffer) -> Int? {
    body.removeAll(keepingCapacityUpTo: .max)
    cells.initialize(repeating: nil, count: ImageRow.slotsPerRow)
    var reader = ImageRow.Reader(old)
    while let (cell, machine) = reader.next() { cells[cell] = machine.bytes }
    guard !reader.isDamaged else { return nil }
    if row < rows {
      let base = journal.baseAddress!
      for index in starts[row]..<starts[row + 1] {
        // A row's records lie all over the journal: warm the one `prefetchDistance` ahead
        // (perhaps the next row's first), whose header would otherwise miss.
        if index &+ Self.prefetchDistance < count {
          millrace_prefetch(base + Int(offsets[index &+ Self.prefetchDistance]))
        }
        let record = Self.record(in: journal, at: Int(offsets[index])).unsafelyUnwrapped
        cells[ImageRow.cell(of: record.slot)] =
          record.tag == 2
          ? nil : UnsafeRawBufferPointer(start: base + record.machine, count: record.machineCount)
      }
    }
    var machines = 0
    for cell in 0..<ImageRow.slotsPerRow {
      guard let machine = cells[cell] else { continue }
      ImageRow.append(cell: cell, machine: machine, to: body)
      machines &+= 1
    }
    return machines
  }
}
