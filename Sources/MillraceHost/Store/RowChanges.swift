#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// A checkpoint's changes to an image indexed by store slot (`ImageRow`), grouped by row: each
/// change a slot and the machine a save put in it (its bytes within the journal, as
/// `ImageChunk` writes a machine), or a delete that empties it.
///
/// `add` takes the changes in the order they were journaled; `group()` sorts them by row with
/// a counting sort, which keeps that order within each row; `rewrite` builds a row from its old
/// body and its changes, the latest change of a slot winning. No name is hashed, sorted or
/// compared: a slot freed and taken again ends up holding what its last change says.
///
/// Memory: 12 bytes a change, twice while grouping, 8 bytes a row, and 16 bytes a cell of one
/// row, freed with it.
struct RowChanges: ~Copyable {
  /// One change: its slot, and where its machine's bytes start in the journal and how many
  /// there are (none: a delete).
  struct Change {
    var slot: UInt32
    var start: UInt32
    var count: UInt32
  }

  /// The bytes the changes' machines are in (a journal, mapped for the checkpoint).
  let journal: UnsafeRawBufferPointer
  private var changes: UnsafeMutablePointer<Change>
  private var capacity: Int
  /// The changes added.
  private(set) var count = 0
  /// The highest row a change falls in, -1 before the first.
  private var lastRow = -1
  /// After `group()`: where each row's changes start in `changes` (`rowCount + 1` entries).
  private var starts: UnsafeMutablePointer<Int>?
  /// A row's cells while it is rewritten: each cell's machine, nil for an empty one.
  private let cells: UnsafeMutablePointer<UnsafeRawBufferPointer?>

  /// Changes to machines whose bytes lie in `journal` (under 4 GiB), room reserved for
  /// `expected` of them.
  init(journal: UnsafeRawBufferPointer, expected: Int = 1024) {
    precondition(journal.count <= Int(UInt32.max), "a journal of 4 GiB or more")
    self.journal = journal
    capacity = max(expected, 16)
    changes = .allocate(capacity: capacity)
    cells = .allocate(capacity: ImageRow.slotsPerRow)
  }

  deinit {
    changes.deallocate()
    starts?.deallocate()
    cells.deallocate()
  }

  /// Adds the change of `slot`: `machine` (bytes within `journal`) saved in it, or nil for a
  /// delete. Changes must be added in the order they were journaled, and before `group()`.
  @inline(__always)
  mutating func add(slot: UInt32, machine: UnsafeRawBufferPointer?) {
    if count == capacity { grow() }
    var change = Change(slot: slot, start: 0, count: 0)
    if let machine, let base = machine.baseAddress {
      change.start = UInt32(truncatingIfNeeded: base - journal.baseAddress!)
      change.count = UInt32(truncatingIfNeeded: machine.count)
    }
    changes[count] = change
    count &+= 1
    lastRow = max(lastRow, ImageRow.row(of: slot))
  }

  private mutating func grow() {
    let grown = UnsafeMutablePointer<Change>.allocate(capacity: 2 * capacity)
    grown.moveInitialize(from: changes, count: count)
    changes.deallocate()
    changes = grown
    capacity *= 2
  }

  /// Sorts the changes by row, each row's in the order they were added (a counting sort: one
  /// pass to count, one to place).
  mutating func group() {
    let rows = lastRow + 1
    let starts = UnsafeMutablePointer<Int>.allocate(capacity: rows + 1)
    starts.initialize(repeating: 0, count: rows + 1)
    for index in 0..<count { starts[ImageRow.row(of: changes[index].slot) + 1] &+= 1 }
    for row in 0..<rows { starts[row + 1] &+= starts[row] }
    let next = UnsafeMutablePointer<Int>.allocate(capacity: max(rows, 1))
    next.initialize(from: starts, count: rows)
    let grouped = UnsafeMutablePointer<Change>.allocate(capacity: max(count, 1))
    for index in 0..<count {
      let change = changes[index]
      let row = ImageRow.row(of: change.slot)
      (grouped + next[row]).initialize(to: change)
      next[row] &+= 1
    }
    next.deallocate()
    changes.deallocate()
    changes = grouped
    capacity = max(count, 1)
    self.starts?.deallocate()
    self.starts = starts
  }

  /// Calls `body` with each row some change falls in, in ascending order (after `group()`).
  func forEachRow<Failure: Error>(_ body: (Int) throws(Failure) -> Void) throws(Failure) {
    guard let starts, lastRow >= 0 else { return }
    for row in 0...lastRow where starts[row + 1] > starts[row] { try body(row) }
  }

  /// Writes row `row`'s new body into `body` (emptied first): the machines of `old` (its body
  /// before this checkpoint, empty for a row not yet written) with the row's changes applied
  /// in the order they were journaled, in slot order (after `group()`). Returns how many
  /// machines it holds (0: the row is to be deleted), or nil when `old` does not decode, or
  /// holds a cell at or past the row's end: damage.
  func rewrite(_ row: Int, old: UnsafeRawBufferPointer, into body: ByteBuffer) -> Int? {
    body.removeAll(keepingCapacityUpTo: .max)
    cells.initialize(repeating: nil, count: ImageRow.slotsPerRow)
    var reader = ImageRow.Reader(old)
    while let (cell, machine) = reader.next() { cells[cell] = machine.bytes }
    guard !reader.isDamaged else { return nil }
    if let starts {
      let base = journal.baseAddress!
      for index in starts[row]..<starts[row + 1] {
        let change = changes[index]
        cells[ImageRow.cell(of: change.slot)] =
          change.count == 0
          ? nil : UnsafeRawBufferPointer(start: base + Int(change.start), count: Int(change.count))
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
