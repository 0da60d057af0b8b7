import CPrefetch

#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// A checkpoint's changes to an image indexed by store slot (`ImageRow`), grouped by row: the
/// records of a journal of version 6 or later (`JournalFormat`), each a save that puts its
/// machine in its slot, a delete that empties it, or a state record that changes the state of
/// the machine in it.
///
/// Made in one pass over the journal, in order: it checks each record's shape and notes its
/// offset as its slot's latest save or delete, or as its latest state record since, in a table
/// of the slots of each row some record falls in. A state record whose state part is short
/// (`ShortParts`) is noted by its part's number instead, the part kept once here: reading the
/// winners then takes no read of their records, which lie all over the journal. `rewrite` then
/// builds a row from its old body and those records, in slot order: only the changes that win
/// are read, and records that lie all over the journal are read in an order known ahead
/// (warmed). No name is hashed, sorted or compared: a slot freed and taken again ends up
/// holding what its last change says.
///
/// Memory: 16 KiB a row some record falls in (8 bytes a slot of it), whatever the number of
/// records, 8 bytes a row, 32 bytes a cell of one row, and 3.3 KiB of short parts. The records
/// themselves stay in the journal, which must outlive this.
struct RowChanges: ~Copyable {
  /// The journal: its header and its records, each whole (written by this process, or found
  /// whole when it was opened).
  let journal: UnsafeRawBufferPointer
  /// Each row's slots' latest records (`LatestRecords`): a journal offset, or for a state
  /// record `shortPart` and its part's number in `parts`.
  private let latest: LatestRecords
  /// The short state parts of the state records noted by number.
  private let parts: ShortParts
  /// Whether state records may be noted by number: the journal is under 2 GiB, so that no
  /// offset has `shortPart` set. In a longer one every record is noted by its offset.
  private let numbersParts: Bool
  /// The records read.
  let count: Int
  /// A row's cells while it is rewritten: each cell's machine, nil for an empty one, and the
  /// state that replaces its own (a state record's part), nil for none.
  private let cells: UnsafeMutablePointer<UnsafeRawBufferPointer?>
  private let states: UnsafeMutablePointer<UnsafeRawBufferPointer?>

  /// Why a journal cannot be read as changes by slot.
  enum Failure: Error, Equatable {
    /// `abandoned` returned true.
    case abandoned
    /// The record at this offset has no slot (`JournalFormat.noSlot`) or no known tag.
    case unslotted(offset: Int)
  }

  /// The records of `journal` (under 4 GiB), read up to the first that does not fit, grouped
  /// by row; `abandoned` is asked every 1,024 records and once after the last.
  init(journal: UnsafeRawBufferPointer, abandoned: (() -> Bool)? = nil) throws(Failure) {
    precondition(journal.count <= Int(UInt32.max), "a journal of 4 GiB or more")
    var latest = LatestRecords()
    var parts = ShortParts()
    // Offsets and part numbers tell apart by `shortPart`, which no offset has below 2 GiB.
    let numbersParts = journal.count < Int(Self.shortPart)
    var count = 0
    var offset = JournalFormat.headerSize
    do throws(Failure) {
      while let record = Self.record(in: journal, at: offset) {
        guard record.slot != JournalFormat.noSlot, (1...3).contains(record.tag) else {
          throw .unslotted(offset: offset)
        }
        let isState = record.tag == JournalFormat.stateTag
        var noted = offset
        if isState, numbersParts, record.machineCount > 0,
          record.machineCount <= ShortParts.longestPart,
          let number = parts.number(of: journal, at: record.machine, count: record.machineCount)
        {
          noted = Int(Self.shortPart) | number
        }
        latest.note(offset: noted, slot: record.slot, isState: isState)
        count &+= 1
        offset = record.next
        if count & 1023 == 0 {
          SharedCPU.yield()
          if let abandoned, abandoned() { throw .abandoned }
        }
      }
      if let abandoned, abandoned() { throw .abandoned }
    } catch {
      latest.deallocate()
      parts.deallocate()
      throw error
    }
    self.journal = journal
    self.latest = latest
    self.parts = parts
    self.numbersParts = numbersParts
    self.count = count
    cells = .allocate(capacity: ImageRow.slotsPerRow)
    states = .allocate(capacity: ImageRow.slotsPerRow)
  }

  deinit {
    latest.deallocate()
    parts.deallocate()
    cells.deallocate()
    states.deallocate()
  }

  /// The record at `offset` of `journal`: its tag, slot, where its machine (a save's; a state
  /// record's state part) starts and how many bytes it takes, and where the next record starts; nil when no record fits
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
    for row in 0..<latest.rows where latest.slots(ofRow: row) != nil { try body(row) }
  }

  /// Calls `body` for each slot of row `row` some record falls in, in slot order, with its
  /// cell, whether a save or delete of it comes first (its latest), the state text of its
  /// latest state record since (nil for none; its bytes in the journal or in a short part),
  /// and that short part's number (`ShortParts`; the same number for the same text throughout
  /// the checkpoint, nil for a text read from its record). When `body` returns
  /// true, it took the state record (a `states` row holds it): `rewrite` no longer applies it.
  /// Returns whether the row still needs `rewrite` (a save, a delete or a state record not
  /// taken). A state record whose state part does not decode is left to `rewrite` (damage).
  func takeStates<Failure: Error>(
    ofRow row: Int,
    _ body: (
      _ cell: Int, _ replaced: Bool, _ state: UnsafeRawBufferPointer?, _ number: Int?
    ) throws(Failure) -> Bool
  ) throws(Failure) -> Bool {
    guard let slots = latest.slots(ofRow: row) else { return false }
    let base = journal.baseAddress.unsafelyUnwrapped
    for cell in 0..<Self.prefetchDistance { warmRecord(slots[2 &* cell &+ 1], base) }
    var needsRewrite = false
    for cell in 0..<ImageRow.slotsPerRow {
      let ahead = cell &+ Self.prefetchDistance
      if ahead < ImageRow.slotsPerRow { warmRecord(slots[2 &* ahead &+ 1], base) }
      let (change, state) = (slots[2 &* cell], slots[2 &* cell &+ 1])
      guard change != 0 || state != 0 else { continue }
      var text: UnsafeRawBufferPointer?
      if state != 0 {
        let part = statePart(state, base)
        var at = 0
        text = ImageChunk.part(part, at: &at)
        if text == nil || at != part.count { return true }
      }
      if try body(cell, change != 0, text, partNumber(state)) {
        slots[2 &* cell &+ 1] = 0
      }
      needsRewrite = needsRewrite || change != 0 || slots[2 &* cell &+ 1] != 0
    }
    return needsRewrite
  }

  /// How many cells ahead of the one it applies `rewrite` warms the cache for that cell's
  /// record.
  static let prefetchDistance = 16

  /// Writes row `row`'s new body into `body` (emptied first): the machines of `old` (its body
  /// before this checkpoint, empty for a row not yet written) with each slot's latest save or
  /// delete applied, and then its latest state record, in slot order. Returns how many
  /// machines it holds (0: the row is to be deleted), or nil when `old` does not decode, holds
  /// a cell at or past the row's end, or a state record falls in a slot without a machine:
  /// damage.
  func rewrite(_ row: Int, old: UnsafeRawBufferPointer, into body: ByteBuffer) -> Int? {
    body.removeAll(keepingCapacityUpTo: .max)
    cells.initialize(repeating: nil, count: ImageRow.slotsPerRow)
    states.initialize(repeating: nil, count: ImageRow.slotsPerRow)
    var reader = ImageRow.Reader(old)
    while let (cell, machine) = reader.next() { cells[cell] = machine.bytes }
    guard !reader.isDamaged else { return nil }
    if let slots = latest.slots(ofRow: row) {
      let base = journal.baseAddress.unsafelyUnwrapped
      // The records lie all over the journal: warm those `prefetchDistance` cells ahead,
      // whose headers would otherwise miss.
      for cell in 0..<Self.prefetchDistance { warm(slots, cell, base) }
      for cell in 0..<ImageRow.slotsPerRow {
        if cell &+ Self.prefetchDistance < ImageRow.slotsPerRow {
          warm(slots, cell &+ Self.prefetchDistance, base)
        }
        let (change, state) = (slots[2 &* cell], slots[2 &* cell &+ 1])
        if change != 0 {
          let record = Self.record(in: journal, at: Int(change)).unsafelyUnwrapped
          cells[cell] =
            record.tag == JournalFormat.deleteTag
            ? nil : UnsafeRawBufferPointer(start: base + record.machine, count: record.machineCount)
        }
        guard state != 0 else { continue }
        guard cells[cell] != nil else { return nil }
        states[cell] = statePart(state, base)
      }
    }
    var machines = 0
    for cell in 0..<ImageRow.slotsPerRow {
      guard let machine = cells[cell] else { continue }
      if let state = states[cell] {
        guard ImageRow.append(cell: cell, machine: machine, state: state, to: body) else {
          return nil
        }
      } else {
        ImageRow.append(cell: cell, machine: machine, to: body)
      }
      machines &+= 1
    }
    return machines
  }

  /// Warms the headers of the records `slots` notes for `cell`.
  @inline(__always)
  private func warm(
    _ slots: UnsafeMutablePointer<UInt32>, _ cell: Int, _ base: UnsafeRawPointer
  ) {
    if slots[2 &* cell] != 0 { millrace_prefetch(base + Int(slots[2 &* cell])) }
    warmRecord(slots[2 &* cell &+ 1], base)
  }

  /// Warms the header of the state record `noted` names, when it names one by its offset.
  @inline(__always)
  private func warmRecord(_ noted: UInt32, _ base: UnsafeRawPointer) {
    if noted != 0 && partNumber(noted) == nil { millrace_prefetch(base + Int(noted)) }
  }

  /// The number of the short part a noted state record is noted by, or nil when it is noted
  /// by its offset (or is 0).
  @inline(__always)
  private func partNumber(_ noted: UInt32) -> Int? {
    numbersParts && noted >= Self.shortPart ? Int(noted & ~Self.shortPart) : nil
  }

  /// The state part of the state record `noted` (not 0) names: its short part's bytes, or
  /// its record's.
  @inline(__always)
  private func statePart(_ noted: UInt32, _ base: UnsafeRawPointer) -> UnsafeRawBufferPointer {
    if let number = partNumber(noted) { return parts.part(number) }
    let record = Self.record(in: journal, at: Int(noted)).unsafelyUnwrapped
    return UnsafeRawBufferPointer(start: base + record.machine, count: record.machineCount)
  }

  /// The bit of a noted state record that says it is noted by its short part's number.
  static let shortPart: UInt32 = 1 << 31
}

/// The offsets of each slot's latest save or delete and of its latest state record since, in a
/// journal, for the rows some record falls in: a table of rows, each nil or
/// `ImageRow.slotsPerRow` pairs of offsets (0: no record; a record never starts at 0, where the
/// header is; a state record may be noted by another value its owner reads back, as
/// `RowChanges` notes one by its short part). Memory of its own, not arrays: a table written a
/// million times would check its uniqueness and bounds every time. Freed by its owner
/// (`deallocate()`).
struct LatestRecords {
  /// One past the highest row a record falls in.
  private(set) var rows = 0
  private var table: UnsafeMutablePointer<UnsafeMutablePointer<UInt32>?>?
  private var capacity = 0

  /// Notes the record at `offset` as `slot`'s latest state record (`isState`), or as its
  /// latest save or delete, which no state record follows yet.
  @inline(__always)
  mutating func note(offset: Int, slot: UInt32, isState: Bool) {
    let row = ImageRow.row(of: slot)
    let slots: UnsafeMutablePointer<UInt32>
    if row < rows, let known = table.unsafelyUnwrapped[row] {
      slots = known
    } else {
      slots = addRow(row)
    }
    let pair = slots + 2 &* ImageRow.cell(of: slot)
    let value = UInt32(truncatingIfNeeded: offset)
    if isState {
      pair[1] = value
    } else {
      (pair[0], pair[1]) = (value, 0)
    }
  }

  /// Row `row`'s slots, made (none noted) and the table grown to hold it.
  @inline(never)
  private mutating func addRow(_ row: Int) -> UnsafeMutablePointer<UInt32> {
    if row >= capacity {
      let grown = max(row + 1, capacity * 2, 16)
      let larger = UnsafeMutablePointer<UnsafeMutablePointer<UInt32>?>.allocate(capacity: grown)
      larger.initialize(repeating: nil, count: grown)
      if let table {
        larger.moveInitialize(from: table, count: capacity)
        table.deallocate()
      }
      (table, capacity) = (larger, grown)
    }
    rows = max(rows, row + 1)
    if let known = table.unsafelyUnwrapped[row] { return known }
    let slots = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * ImageRow.slotsPerRow)
    slots.initialize(repeating: 0, count: 2 * ImageRow.slotsPerRow)
    table.unsafelyUnwrapped[row] = slots
    return slots
  }

  /// Row `row`'s slots' records, two offsets a cell (its latest save or delete, its latest
  /// state record since; 0 for none), or nil when no record falls in it.
  func slots(ofRow row: Int) -> UnsafeMutablePointer<UInt32>? {
    row < rows ? table.unsafelyUnwrapped[row] : nil
  }

  /// Frees the table and its rows.
  func deallocate() {
    guard let table else { return }
    for row in 0..<rows { table[row]?.deallocate() }
    table.deallocate()
  }
}
