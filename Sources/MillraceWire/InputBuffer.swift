#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Received bytes waiting to be decoded, in memory reused from one read to the next: what every
/// `FrameDecoder` appends to, searches and cuts frames from.
///
/// Guarantees:
/// - The bytes received are `storage[0..<count]`. Positions are indices of `storage`, so a
///   `Frame` can share `storage` (copy-on-write) and name its parts by their ranges.
/// - An append may first drop the bytes before `keep`, the position of the first byte the
///   caller still needs: always when nothing from `keep` on is left, else only when the room
///   after the last byte is too small for the new ones. It returns how many bytes it dropped;
///   every position the caller holds moves down by that many. No byte from `keep` on is ever
///   lost or reordered.
/// - The room grows by doubling (at least), so appends are amortised constant time per byte,
///   and it is kept: once it fits the traffic, decoding allocates nothing. An append is a
///   `memcpy` (plus a `memmove` when it drops bytes), not `Array`'s generic appending.
/// - Searching for a line end is a `memchr` from where the last search stopped, so a line
///   that arrives in pieces is scanned once.
struct InputBuffer: Sendable {
  /// The received bytes, then the room: `storage.count` is the capacity, never shrunk.
  private(set) var storage: [UInt8] = []
  /// How many bytes are received.
  private(set) var count = 0

  /// An empty buffer; it allocates on its first append.
  init() {}

  /// The byte at `position`, which must be below `count`.
  subscript(position: Int) -> UInt8 { storage[position] }

  /// Appends `bytes` (copied; they must not point into this buffer), first dropping the bytes
  /// before `keep` when nothing is left after them or the room is too small. Returns how many
  /// bytes were dropped from the front.
  mutating func append(_ bytes: UnsafeRawBufferPointer, keepingFrom keep: Int) -> Int {
    precondition(keep >= 0 && keep <= count, "keep must be a position in the buffer")
    guard let source = bytes.baseAddress, bytes.count > 0 else { return 0 }
    let dropped = keep == count || storage.count - count < bytes.count ? keep : 0
    if dropped > 0 {
      let kept = count - dropped
      if kept > 0 {
        storage.withUnsafeMutableBytes { room in
          let base = room.baseAddress!
          _ = memmove(base, base + dropped, kept)
        }
      }
      count = kept
    }
    if storage.count - count < bytes.count { grow(toHold: count + bytes.count) }
    let start = count
    storage.withUnsafeMutableBytes { room in
      (room.baseAddress! + start).copyMemory(from: source, byteCount: bytes.count)
    }
    count += bytes.count
    return dropped
  }

  /// Forgets every byte; keeps the room.
  mutating func removeAll() {
    count = 0
  }

  /// The first line that starts at `start` and whose `\n` is at or after `scan` (bytes between
  /// `start` and `scan` are known to hold none): its bytes without the `\n` and one `\r`
  /// before it, and where the next line starts. Nil when no `\n` is received from `scan` on.
  func line(from start: Int, searchingFrom scan: Int) -> (content: Range<Int>, next: Int)? {
    guard let newline = firstNewline(from: scan) else { return nil }
    return (withoutCarriageReturn(start..<newline), newline + 1)
  }

  /// `range` without its last byte if that is a `\r`.
  func withoutCarriageReturn(_ range: Range<Int>) -> Range<Int> {
    guard !range.isEmpty, storage[range.upperBound - 1] == 13 else { return range }
    return range.lowerBound..<range.upperBound - 1
  }

  /// The position of the first `\n` at or after `start` among the received bytes.
  private func firstNewline(from start: Int) -> Int? {
    guard start < count else { return nil }
    let received = count
    return storage.withUnsafeBytes { bytes -> Int? in
      let base = bytes.baseAddress!
      guard let hit = memchr(base + start, 0x0A, received - start) else { return nil }
      return base.distance(to: UnsafeRawPointer(hit))
    }
  }

  /// Replaces the storage by one of at least `size` bytes, and twice the old one, holding the
  /// received bytes.
  private mutating func grow(toHold size: Int) {
    // `memcpy` and `memset`, not a generic append of zeros: in a debug build that is a loop of
    // protocol calls per byte, long enough on a 64 KiB read to hold every other client.
    let newSize = max(size, storage.count * 2)
    let kept = count
    storage = storage.withUnsafeBytes { old in
      [UInt8](unsafeUninitializedCapacity: newSize) { room, initialized in
        let base = UnsafeMutableRawPointer(room.baseAddress!)
        if kept > 0 { memcpy(base, old.baseAddress!, kept) }
        memset(base + kept, 0, newSize - kept)
        initialized = newSize
      }
    }
  }
}
