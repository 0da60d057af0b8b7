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

  /// Appends the machine in `cell` as `append(cell:machine:to:)` does, but with `state` (a
  /// part: its varint count and its bytes) in place of its own state. Returns false, having
  /// appended nothing, when `machine` is not one machine's parts (damage).
  static func append(
    cell: Int, machine: UnsafeRawBufferPointer, state: UnsafeRawBufferPointer,
    to body: ByteBuffer
  ) -> Bool {
    var at = 0
    guard ImageChunk.part(machine, at: &at) != nil, ImageChunk.part(machine, at: &at) != nil
    else { return false }
    let stateStart = at
    guard ImageChunk.part(machine, at: &at) != nil else { return false }
    let head = UnsafeRawBufferPointer(rebasing: machine[..<stateStart])
    let tail = UnsafeRawBufferPointer(rebasing: machine[at...])
    body.append(length: slotBytes + head.count + state.count + tail.count) { start in
      writeCell(cell, at: start)
      var cursor = UnsafeMutableRawPointer(start + slotBytes)
      func copy(_ part: UnsafeRawBufferPointer) {
        guard let from = part.baseAddress else { return }
        cursor.copyMemory(from: from, byteCount: part.count)
        cursor += part.count
      }
      copy(head)
      copy(state)
      copy(tail)
    }
    return true
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
