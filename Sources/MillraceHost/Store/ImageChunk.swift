#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// The byte form of one chunk of the snapshot's image (`SQLiteSnapshot`): machines in the order
/// of their names, each `name | kind | state | timers`, every part a varint byte count
/// (`LEB128`) and its bytes; timers in their compact form (`TimerEncoding`), no bytes for none.
/// A `toggle` machine named `dev:123456` takes 22 bytes.
///
/// Names are ordered by their bytes, a name before every longer name it begins (SQLite's
/// `BINARY` order, and `JournalFormat.forEachLatest`'s `byName`). Each name comes once.
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
    /// The bytes `append` writes for it, when it was read from a chunk (`Reader`): copied as
    /// they are. Empty for one built from its parts.
    var encoded = UnsafeRawBufferPointer(start: nil, count: 0)

    /// The bytes `append` writes for it.
    var size: Int {
      Self.partSize(name) + Self.partSize(kind) + Self.partSize(state) + Self.partSize(timers)
    }

    private static func partSize(_ part: UnsafeRawBufferPointer) -> Int {
      LEB128.size(of: UInt64(part.count)) + part.count
    }

    /// The machine as `MachineStore.forEach` hands it out.
    var row: StoredRow {
      StoredRow(name: name, kind: kind, state: state, timers: StoredTimers(timers))
    }
  }

  /// Appends `entry` to `body`.
  static func append(_ entry: Entry, to body: ByteBuffer) {
    // A machine a checkpoint keeps as it was: one copy (most of an image rewritten).
    if let encoded = entry.encoded.baseAddress {
      body.append(length: entry.encoded.count) { start in
        start.update(from: encoded.assumingMemoryBound(to: UInt8.self), count: entry.encoded.count)
      }
      return
    }
    body.append(length: entry.size) { start in
      var cursor = start
      write(entry.name, at: &cursor)
      write(entry.kind, at: &cursor)
      write(entry.state, at: &cursor)
      write(entry.timers, at: &cursor)
    }
  }

  private static func write(
    _ part: UnsafeRawBufferPointer, at cursor: inout UnsafeMutablePointer<UInt8>
  ) {
    LEB128.write(UInt64(part.count), at: &cursor)
    if let base = part.baseAddress {
      cursor.update(from: base.assumingMemoryBound(to: UInt8.self), count: part.count)
    }
    cursor += part.count
  }

  /// Whether `left` orders before `right` (negative), is the same name (0) or after it.
  /// Inline, eight bytes at a time: a checkpoint compares each machine of the chunks it
  /// rewrites with its neighbour and with the records (three times a million at a million
  /// machines), and names are short.
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
    while offset < common {
      if left[offset] != right[offset] { return Int(left[offset]) - Int(right[offset]) }
      offset += 1
    }
    return left.count - right.count
  }

  /// Reads a chunk's machines one after another. Stops at the end of the bytes, or at the first
  /// that is not whole or not after the one before it (`isDamaged` then).
  struct Reader {
    let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var last: UnsafeRawBufferPointer?
    /// Set when reading stopped before the end of the bytes.
    private(set) var isDamaged = false

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next machine, or nil after the last (or at damage).
    mutating func next() -> Entry? {
      guard offset < bytes.count, !isDamaged else { return nil }
      var at = offset
      guard let name = part(&at), let kind = part(&at), let state = part(&at),
        let timers = part(&at), last.map({ ImageChunk.compare($0, name) < 0 }) ?? true
      else {
        isDamaged = true
        return nil
      }
      defer {
        offset = at
        last = name
      }
      return Entry(
        name: name, kind: kind, state: state, timers: timers,
        encoded: UnsafeRawBufferPointer(rebasing: bytes[offset..<at]))
    }

    private func part(_ at: inout Int) -> UnsafeRawBufferPointer? {
      guard let count = LEB128.read(bytes, at: &at), count <= UInt64(bytes.count - at) else {
        return nil
      }
      defer { at += Int(count) }
      return UnsafeRawBufferPointer(rebasing: bytes[at..<at + Int(count)])
    }
  }
}
