import MillraceWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The ids of state texts in the snapshot's `stateNames(id INTEGER PRIMARY KEY, text BLOB)`,
/// by which its `states` rows name a slot's state (`StatesRow`): 1 to `maximumID`, each
/// for one text forever (an id is never given to another text, so a `states` row read at a
/// restore names the texts it was written with, whatever the machine files say now).
///
/// Only texts of at most `longestText` bytes get an id, and only `maximumID` of them ever: a
/// state without one (a data machine's variables, or texts past the last id) is written into
/// its machine's image cell instead, as a save is. Finding a text's id costs a lookup in a
/// small cache of the texts found last (the few states of a kind recur), else in a dictionary.
///
/// Used by the snapshot's thread (the loop, or the checkpoint worker while it runs); ids given
/// in a transaction that rolls back are taken back (`rollBack(to:)`).
final class StateNames {
  /// The most ids: a `states` row keeps a `UInt16` a slot, 0 for none.
  static let maximumID = Int(UInt16.max)
  /// The longest text that gets an id.
  static let longestText = 32

  // Used by one thread at a time, and no access spans a call back into this object: no dynamic
  // exclusivity checks (a checkpoint looks up an id for each state record).
  /// Each id's text, by id − 1, in memory of its own (valid until this is released).
  @exclusivity(unchecked) private var texts: [UnsafeRawBufferPointer] = []
  /// Ids by text.
  @exclusivity(unchecked) private var ids: [[UInt8]: UInt16] = [:]
  /// The texts found last: by `cacheIndex(of:)`, a text's bytes and its id (0: empty).
  @exclusivity(unchecked) private var cache = [(text: UnsafeRawBufferPointer, id: UInt16)](
    repeating: (UnsafeRawBufferPointer(start: nil, count: 0), 0), count: 64)

  /// How many ids are given.
  var count: Int { texts.count }

  deinit {
    for text in texts { text.deallocate() }
  }

  /// Adds `text` as the next id's (reading the table at open, in id order).
  func append(_ text: UnsafeRawBufferPointer) {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(text.count, 1), alignment: 1)
    copy.copyMemory(from: text)
    texts.append(UnsafeRawBufferPointer(rebasing: copy[..<text.count]))
    ids[Array(text)] = UInt16(truncatingIfNeeded: texts.count)
  }

  /// The text of `id` (1 to `count`), valid until this is released; nil for another id.
  func text(of id: UInt16) -> UnsafeRawBufferPointer? {
    id > 0 && Int(id) <= texts.count ? texts[Int(id) - 1] : nil
  }

  /// The id of `text`: the one it has, or a new one that `store` writes into the table (its
  /// failure is rethrown); nil when the text cannot have one (too long, or no id left).
  func id(
    of text: UnsafeRawBufferPointer,
    storing store: (UInt16, UnsafeRawBufferPointer) throws(StoreError) -> Void
  ) throws(StoreError) -> UInt16? {
    guard text.count <= Self.longestText else { return nil }
    let slot = Self.cacheIndex(of: text)
    let cached = cache[slot]
    if cached.id != 0, cached.text.count == text.count,
      text.count == 0
        || memcmp(
          cached.text.baseAddress.unsafelyUnwrapped, text.baseAddress.unsafelyUnwrapped,
          text.count) == 0
    {
      return cached.id
    }
    let id: UInt16
    if let known = ids[Array(text)] {
      id = known
    } else {
      guard texts.count < Self.maximumID else { return nil }
      append(text)
      id = UInt16(truncatingIfNeeded: texts.count)
      try store(id, text)
    }
    cache[slot] = (texts[Int(id) - 1], id)
    return id
  }

  /// Takes back the ids given after the first `count` (their transaction rolled back).
  func rollBack(to count: Int) {
    guard texts.count > count else { return }
    for text in texts[count...] {
      ids[Array(text)] = nil
      text.deallocate()
    }
    texts.removeLast(texts.count - count)
    for slot in cache.indices where Int(cache[slot].id) > count {
      cache[slot] = (UnsafeRawBufferPointer(start: nil, count: 0), 0)
    }
  }

  /// A text's place in the cache: from its length and first bytes.
  private static func cacheIndex(of text: UnsafeRawBufferPointer) -> Int {
    var key = UInt64(text.count)
    for index in 0..<min(text.count, 8) { key = key &* 31 &+ UInt64(text[index]) }
    return Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 58)
  }
}

/// The byte form of one row of the snapshot's `states(id INTEGER PRIMARY KEY, body BLOB)`: the
/// states of `slotsPerRow` consecutive slots (row `slot >> slotBits`), a `UInt16` each,
/// little-endian: 0 when the slot's image cell holds its state, else the `StateNames` id of the
/// state that replaces the cell's (a state record checkpointed without a rewrite of its image
/// row). A row shorter than `bodyBytes` (or none) reads as zeros past its end.
enum StatesRow {
  /// The bits of a slot that pick its place within its row.
  static let slotBits = 14
  /// The slots a row holds: a body of 32 KiB, within one page of the snapshot.
  static let slotsPerRow = 1 << slotBits
  /// The bytes of a whole row's body.
  static let bodyBytes = 2 * slotsPerRow
  /// The image rows (`ImageRow`) a states row spans.
  static let imageRowsPerRow = slotsPerRow / ImageRow.slotsPerRow

  /// The row that holds `slot`'s state.
  @inline(__always)
  static func row(of slot: UInt32) -> Int { Int(slot >> UInt32(slotBits)) }

  /// The place of `slot`'s state within its row.
  @inline(__always)
  static func index(of slot: UInt32) -> Int { Int(slot) & (slotsPerRow - 1) }

  /// Writes `id` at `index` of `body` (a whole row's); returns whether it changed.
  @inline(__always)
  static func set(_ id: UInt16, at index: Int, in body: UnsafeMutableRawBufferPointer) -> Bool {
    guard id != self.id(at: index, in: UnsafeRawBufferPointer(body)) else { return false }
    body[2 &* index] = UInt8(truncatingIfNeeded: id)
    body[2 &* index &+ 1] = UInt8(truncatingIfNeeded: id >> 8)
    return true
  }

  /// The state id at `index` of `body` (0 past its end).
  @inline(__always)
  static func id(at index: Int, in body: UnsafeRawBufferPointer) -> UInt16 {
    guard 2 &* index &+ 1 < body.count else { return 0 }
    return UInt16(body[2 &* index]) | UInt16(body[2 &* index &+ 1]) << 8
  }
}
