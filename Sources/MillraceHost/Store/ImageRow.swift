#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// The byte form of one row of the image indexed by store slot (`SQLiteSnapshot`; docs/store.md,
/// "Image format"): the machines of `slotsPerRow` consecutive slots (row
/// `slot >> slotBits`), in slot order, each its slot's low bits (`UInt16`, little-endian) and
/// then the machine as an image chunk holds it (`ImageChunk`: `name | kind | state | timers`).
/// A `toggle` machine named `dev:123456` in state `off` takes 25 bytes.
///
/// A checkpoint rewrites a row whole when one of its slots changes (`RowChanges`): it finds a
/// machine by its slot, not by its name, so no name is hashed, sorted or compared.
enum ImageRow {
  /// The bits of a slot that pick its cell within its row.
  static let slotBits = 11
  /// The slots a row holds: 2,048 machines of about 25 bytes, near `ImageChunk.targetBytes`.
  static let slotsPerRow = 1 << slotBits
  /// The bytes a cell's slot takes before its machine.
  static let slotBytes = 2

  /// The row that holds `slot`.
  @inline(__always)
  static func row(of slot: UInt32) -> Int { Int(slot >> UInt32(slotBits)) }

  /// The cell of `slot` within its row.
  @inline(__always)
  static func cell(of slot: UInt32) -> Int { Int(slot) & (slotsPerRow - 1) }

  /// Appends the machine in `cell` (below `slotsPerRow`), its bytes as `ImageChunk.append`
  /// writes them, to `body`, after every cell before it.
  @inline(__always)
  static func append(cell: Int, machine: UnsafeRawBufferPointer, to body: ByteBuffer) {
    body.append(length: slotBytes + machine.count) { start in
      writeCell(cell, at: start)
      if let base = machine.baseAddress {
        (start + slotBytes).update(
          from: base.assumingMemoryBound(to: UInt8.self), count: machine.count)
      }
    }
  }

  /// Appends a cell's slot bits (`UInt16`, little-endian) to `body`, the machine to follow.
  @inline(__always)
  static func appendCell(_ cell: Int, to body: ByteBuffer) {
    body.append(length: slotBytes) { writeCell(cell, at: $0) }
  }

  @inline(__always)
  private static func writeCell(_ cell: Int, at start: UnsafeMutablePointer<UInt8>) {
    start[0] = UInt8(truncatingIfNeeded: cell)
    start[1] = UInt8(truncatingIfNeeded: cell >> 8)
  }

  /// Reads a row's machines in slot order. Stops at the end of the bytes, or at the first that
  /// is not whole, whose cell is not below `slotsPerRow`, or whose cell is not after the one
  /// before it (`isDamaged` then).
  struct Reader {
    let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// The next cell a machine may take.
    private var nextCell = 0
    /// Set when reading stopped before the end of the bytes.
    private(set) var isDamaged = false

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next machine and its cell, or nil after the last (or at damage).
    @inline(__always)
    mutating func next() -> (cell: Int, machine: ImageChunk.Machine)? {
      guard offset < bytes.count, !isDamaged else { return nil }
      var at = offset &+ ImageRow.slotBytes
      guard at <= bytes.count else {
        isDamaged = true
        return nil
      }
      let cell =
        Int(bytes[offset]) | Int(bytes[offset &+ 1]) << 8
      guard cell >= nextCell, cell < ImageRow.slotsPerRow,
        let machine = ImageChunk.machine(bytes, at: &at)
      else {
        isDamaged = true
        return nil
      }
      offset = at
      nextCell = cell &+ 1
      return (cell, machine)
    }
  }
}
