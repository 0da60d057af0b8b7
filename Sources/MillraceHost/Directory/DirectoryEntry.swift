import Millrace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What the machine directory keeps of one hosted machine: 32 bytes in the slot of the
/// machine's runtime record (`MachineID.index`), one cache line's half.
///
/// The name is stored once, here: inline when it fits `inlineCapacity` bytes (a name such as
/// `dev:1000000` does), otherwise in heap bytes of exactly its length that the entry points
/// to. A free entry is all zero (its `length` is 0: names are 1 to 128 bytes), so a table of
/// entries from `calloc` starts free without being written.
struct DirectoryEntry {
  /// The low 32 bits of the name's hash (`NameHash`): the bucket, and a filter before bytes
  /// are compared.
  var hash: UInt32 = 0
  /// The next entry of the same bucket's chain, as its slot + 1; 0 ends the chain.
  var next: UInt32 = 0
  /// The runtime generation of the machine in the slot (`MachineID.generation`).
  var generation: UInt32 = 0
  /// The host's kind slot the machine runs under (`MachineHost`'s kind table).
  var kind: UInt16 = 0
  /// The name's length in bytes; 0 for a free entry.
  var length: UInt8 = 0
  /// `changed` and later flags.
  var flags: UInt8 = 0
  /// The name's bytes (`length` ≤ `inlineCapacity`), or a pointer to them in the first word.
  var bytes: (UInt64, UInt64) = (0, 0)

  /// The longest name kept inline.
  static let inlineCapacity = 16
  /// Where `bytes` is in the entry (after four words of 32 bits; a test checks it).
  static let bytesOffset = 16
  /// Flag: the machine changed in this turn and is listed in the host's dirty list.
  static let changed: UInt8 = 1
  /// Flag: the store's last record of the machine (in the commit that holds, or in the open
  /// turn) is a save without timers, so that a change of its state alone can be journaled as
  /// a state record (`MachineStore.saveState`). Set by the host's commit only; cleared with
  /// the entry, and by a commit that failed.
  static let storedPlain: UInt8 = 2

  /// Whether a machine holds the entry.
  var isTaken: Bool { length != 0 }

  /// Whether the machine changed in this turn.
  var isChanged: Bool {
    get { flags & Self.changed != 0 }
    set { flags = newValue ? flags | Self.changed : flags & ~Self.changed }
  }

  /// Whether the store's last record of the machine is a save without timers
  /// (`storedPlain`).
  var isStoredPlain: Bool {
    get { flags & Self.storedPlain != 0 }
    set { flags = newValue ? flags | Self.storedPlain : flags & ~Self.storedPlain }
  }

  /// Whether the name is on the heap rather than inline.
  var isOutOfLine: Bool { Int(length) > Self.inlineCapacity }

  /// The machine's id in the runtime, given the entry's slot.
  func id(slot: UInt32) -> MachineID { MachineID(index: slot, generation: generation) }
}

extension UnsafeMutablePointer where Pointee == DirectoryEntry {
  /// Fills a free entry with `name` (1 to 128 bytes): inline, or copied to heap bytes of its
  /// exact length. The chain link and flags start empty.
  func take(
    name: UnsafeRawBufferPointer, hash: UInt32, generation: UInt32, kind: UInt16
  ) {
    pointee = DirectoryEntry(
      hash: hash, next: 0, generation: generation, kind: kind,
      length: UInt8(truncatingIfNeeded: name.count))
    if pointee.isOutOfLine {
      let heap = UnsafeMutableRawPointer.allocate(byteCount: name.count, alignment: 1)
      heap.copyMemory(from: name.baseAddress!, byteCount: name.count)
      pointee.bytes.0 = UInt64(UInt(bitPattern: heap))
    } else if name.count > 0 {
      withUnsafeMutableBytes(of: &pointee.bytes) {
        $0.baseAddress!.copyMemory(from: name.baseAddress!, byteCount: name.count)
      }
    }
  }

  /// Frees the heap bytes of the name (if any) and marks the entry free (all zero).
  func release() {
    if pointee.isOutOfLine {
      UnsafeMutableRawPointer(bitPattern: UInt(pointee.bytes.0))?.deallocate()
    }
    pointee = DirectoryEntry()
  }

  /// Calls `body` with the name's bytes, where they are stored.
  @inline(__always)
  func withName<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let count = Int(pointee.length)
    if count > DirectoryEntry.inlineCapacity {
      return try body(
        UnsafeRawBufferPointer(
          start: UnsafeRawPointer(bitPattern: UInt(pointee.bytes.0)), count: count))
    }
    return try body(
      UnsafeRawBufferPointer(
        start: UnsafeRawPointer(self) + DirectoryEntry.bytesOffset, count: count))
  }

  /// Whether the entry holds the name whose bytes are `name` and hash is `hash`.
  @inline(__always)
  func holds(_ name: UnsafeRawBufferPointer, hash: UInt32) -> Bool {
    guard pointee.hash == hash, Int(pointee.length) == name.count else { return false }
    guard let base = name.baseAddress else { return true }
    if name.count <= DirectoryEntry.inlineCapacity {
      // Inline names are zero-padded: one comparison of two words, no call.
      var padded: (UInt64, UInt64) = (0, 0)
      withUnsafeMutableBytes(of: &padded) {
        $0.baseAddress!.copyMemory(from: base, byteCount: name.count)
      }
      return padded == pointee.bytes
    }
    return withName { memcmp($0.baseAddress!, base, name.count) == 0 }
  }

  /// The name as a `String` (no allocation for names of up to 15 bytes).
  var name: String { withName { String(decoding: $0, as: UTF8.self) } }
}
