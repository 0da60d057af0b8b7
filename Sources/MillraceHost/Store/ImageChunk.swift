#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// The byte form of one chunk of the snapshot's image (`SQLiteSnapshot`): machines in the order
/// of their names, each `name | kind | state | timers`, every part a varint byte count
/// (`LEB128`) and its bytes; timers in their compact form (`TimerEncoding`), no bytes for none.
/// A `toggle` machine named `dev:123456` in state `off` takes 23 bytes.
///
/// Names are ordered by their bytes, a name before every longer name it begins (SQLite's
/// `BINARY` order). Each name comes once. Chunks are the image of schema 4, read only to migrate
/// it (`SQLiteSnapshot+Migration.swift`); their machines' form lives on in the rows of schema 5
/// (`ImageRow`) and in the journal's records.
enum ImageChunk {
  /// The size at which a chunk being written is closed and the next one started: a chunk is
  /// rewritten whole when one of its machines changes, so a small one costs a checkpoint of a
  /// few changes less; a large one costs fewer rows. Chosen with `SQLiteSnapshot.pageSize` so
  /// that a chunk (with the machine that crosses the target) is one page, not a row and a
  /// chain of overflow pages, each written to the log and copied back (docs/store.md).
  static let targetBytes = 60 * 1024

  /// One machine of a chunk, its parts in place.
  struct Entry {
    let name: UnsafeRawBufferPointer
    let kind: UnsafeRawBufferPointer
    let state: UnsafeRawBufferPointer
    let timers: UnsafeRawBufferPointer

    /// The bytes `append` writes for it.
    var size: Int {
      ImageChunk.partSize(name.count) + ImageChunk.partSize(kind.count)
        + ImageChunk.partSize(state.count) + ImageChunk.partSize(timers.count)
    }

  }

  /// Appends `entry` to `body`.
  static func append(_ entry: Entry, to body: ByteBuffer) {
    body.append(length: entry.size) { start in
      var cursor = start
      write(entry.name, at: &cursor)
      write(entry.kind, at: &cursor)
      write(entry.state, at: &cursor)
      write(entry.timers, at: &cursor)
    }
  }

  /// The bytes a part of `count` bytes takes: its varint count and its bytes. Inline for the
  /// one-byte counts of names, kinds and states: the loop sizes four parts a save.
  @inline(__always)
  static func partSize(_ count: Int) -> Int {
    count < 0x80 ? count &+ 1 : LEB128.size(of: UInt64(count)) + count
  }

  /// Writes `part` (its varint count, then its bytes) at `cursor`, which must have room for
  /// `partSize(part.count)` bytes, and moves `cursor` past it.
  @inline(__always)
  static func write(
    _ part: UnsafeRawBufferPointer, at cursor: inout UnsafeMutablePointer<UInt8>
  ) {
    writeCount(part.count, at: &cursor)
    if let base = part.baseAddress {
      cursor.update(from: base.assumingMemoryBound(to: UInt8.self), count: part.count)
    }
    cursor += part.count
  }

  /// Writes `text` as a part (its varint byte count, then its UTF-8 bytes) at `cursor`, which
  /// must have room for `partSize(text.utf8.count)` bytes, and moves `cursor` past it.
  @inline(__always)
  static func write(_ text: String, at cursor: inout UnsafeMutablePointer<UInt8>) {
    UTF8Text.withBytes(of: text) { bytes in
      write(UnsafeRawBufferPointer(bytes), at: &cursor)
    }
  }

  /// Writes a part's varint byte count at `cursor` and moves it past: a one-byte count (every
  /// name, kind and state) inline, as `partSize` counts it.
  @inline(__always)
  static func writeCount(_ count: Int, at cursor: inout UnsafeMutablePointer<UInt8>) {
    if count < 0x80 {
      cursor.pointee = UInt8(truncatingIfNeeded: count)
      cursor += 1
    } else {
      LEB128.write(UInt64(count), at: &cursor)
    }
  }

  /// Whether `left` orders before `right` (negative), is the same name (0) or after it.
  /// Eight bytes at a time (it served the checkpoints of schema 4's image, three comparisons a
  /// machine; the migration now checks the chunks' order with it).
  @inline(__always)
  static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
    let common = min(left.count, right.count)
    var offset = 0
    while offset + 8 <= common {
      let first = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      let second = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      if first != second { return first < second ? -1 : 1 }
      offset += 8
    }
    guard offset < common else { return left.count - right.count }
    // The last bytes in common, as the eight that end there: the ones before `offset` in that
    // window are alike, so its order is theirs (names of 9 to 15 bytes, such as
    // `dev:123456`, take two loads, no loop).
    if common >= 8 {
      let end = common &- 8
      let first = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: end, as: UInt64.self))
      let second = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: end, as: UInt64.self))
      if first != second { return first < second ? -1 : 1 }
      return left.count - right.count
    }
    while offset < common {
      if left[offset] != right[offset] { return Int(left[offset]) - Int(right[offset]) }
      offset += 1
    }
    return left.count - right.count
  }

  /// Reads a chunk's machines one after another. Stops at the end of the bytes, or at the first
  /// that is not whole or not after the one before it (`isDamaged` then).
  /// The part at `at` of `bytes` (its varint byte count and its bytes, as `append` writes
  /// each), moving `at` past it; nil when it is not whole. A checkpoint reads four a machine
  /// for every machine of the chunks it rewrites, and one a record of its journal (version
  /// 5 records hold their machine as a chunk does): one-byte counts (every name, kind and
  /// state) are read inline, and the part is made from the base pointer, not from a slice.
  @inline(__always)
  static func part(_ bytes: UnsafeRawBufferPointer, at: inout Int) -> UnsafeRawBufferPointer? {
    let total = bytes.count
    guard at < total, let base = bytes.baseAddress else { return nil }
    let first = base.load(fromByteOffset: at, as: UInt8.self)
    var start = at &+ 1
    var count = Int(first)
    if first >= 0x80 {
      start = at
      guard let long = LEB128.read(bytes, at: &start), long <= UInt64(total &- start) else {
        return nil
      }
      count = Int(long)
    }
    guard count <= total &- start else { return nil }
    at = start &+ count
    return UnsafeRawBufferPointer(start: base + start, count: count)
  }

  struct Reader {
    let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// The name read last (its base nil before the first: a part read from `bytes` always has
    /// one).
    private var last = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Set when reading stopped before the end of the bytes.
    private(set) var isDamaged = false

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next machine, or nil after the last (or at damage).
    mutating func next() -> Entry? {
      guard let machine = read() else { return nil }
      return Entry(
        name: machine.name, kind: machine.kind, state: machine.state, timers: machine.timers)
    }

    /// The next machine's name and all of its bytes (what `append` writes for it), or nil
    /// after the last (or at damage): for a checkpoint, which copies most machines as they
    /// are and looks only at their names.
    @inline(__always)
    mutating func nextEncoded() -> (name: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer)? {
      guard let machine = read() else { return nil }
      return (machine.name, machine.bytes)
    }

    /// The next machine's parts and all of its bytes; nil after the last, or at damage (then
    /// `isDamaged`). Inlined into both readers, so that each keeps only what it uses.
    @inline(__always)
    private mutating func read() -> Machine? {
      guard offset < bytes.count, !isDamaged else { return nil }
      guard let machine = ImageChunk.machine(bytes, at: &offset),
        last.baseAddress == nil || ImageChunk.compare(last, machine.name) < 0
      else {
        isDamaged = true
        return nil
      }
      last = machine.name
      return machine
    }
  }

  /// A machine's four parts in place, and all of its bytes.
  typealias Machine = (
    name: UnsafeRawBufferPointer, kind: UnsafeRawBufferPointer, state: UnsafeRawBufferPointer,
    timers: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer
  )

  /// The machine at `at` of `bytes` (`name | kind | state | timers`, as `append` writes it),
  /// moving `at` past it; nil, with `at` as it was, when one of its parts is not whole.
  @inline(__always)
  static func machine(_ bytes: UnsafeRawBufferPointer, at: inout Int) -> Machine? {
    var end = at
    guard let name = part(bytes, at: &end), let kind = part(bytes, at: &end),
      let state = part(bytes, at: &end), let timers = part(bytes, at: &end)
    else { return nil }
    let whole = UnsafeRawBufferPointer(start: bytes.baseAddress! + at, count: end &- at)
    at = end
    return (name, kind, state, timers, whole)
  }
}
