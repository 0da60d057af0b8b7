/// The state parts of up to `longestPart` bytes a checkpoint's pass over its journal met
/// (`RowChanges`), each kept once, by a number of its own: so that a slot's latest state
/// record is noted by that number instead of its offset, and the checkpoint reads the part
/// from here, in its cache, instead of from the record, wherever it lies in the journal.
///
/// Holds at most `capacity` parts; a part that finds no room (all numbers given, or its place
/// in the lookup taken by another part) gets none, and is read from its record as before.
/// Memory of its own, freed by its owner (`deallocate()`): the pass asks once a record, and an
/// array's uniqueness and bounds checks would be most of that.
struct ShortParts {
  /// The longest part kept: one word.
  static let longestPart = 8
  /// The most parts kept (the numbers 0 ..< capacity).
  static let capacity = 256
  /// The places of the lookup: a part's place is its word's hash (`place(of:count:)`), with
  /// room for twice as many parts as are kept.
  static let places = 512

  /// Each part's bytes, by number, in one word (zero past its count), and its count.
  private let words: UnsafeMutablePointer<UInt64>
  private let counts: UnsafeMutablePointer<UInt8>
  /// By place: the part's number + 1, 0 for none.
  private let numbers: UnsafeMutablePointer<UInt16>
  /// The parts kept.
  private(set) var count = 0

  init() {
    words = .allocate(capacity: Self.capacity)
    counts = .allocate(capacity: Self.capacity)
    numbers = .allocate(capacity: Self.places)
    numbers.initialize(repeating: 0, count: Self.places)
  }

  /// Frees the parts.
  func deallocate() {
    words.deallocate()
    counts.deallocate()
    numbers.deallocate()
  }

  /// The number of the part of `count` bytes (1 to `longestPart`) that starts at `offset` of
  /// `bytes`: the one it has, a new one, or nil when it gets none.
  @inline(__always)
  mutating func number(of bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) -> Int? {
    let word = Self.word(bytes, at: offset, count: count)
    let place = Self.place(of: word, count: count)
    let held = Int(numbers[place])
    if held != 0 {
      let number = held &- 1
      return words[number] == word.littleEndian && Int(counts[number]) == count ? number : nil
    }
    guard self.count < Self.capacity else { return nil }
    let number = self.count
    (words + number).initialize(to: word.littleEndian)
    (counts + number).initialize(to: UInt8(truncatingIfNeeded: count))
    numbers[place] = UInt16(truncatingIfNeeded: number &+ 1)
    self.count &+= 1
    return number
  }

  /// The bytes of part `number` (below `count`), valid until this is freed.
  @inline(__always)
  func part(_ number: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: words + number, count: Int(counts[number]))
  }

  /// The `count` bytes (1 to 8) at `offset` of `bytes` as a word's low bytes, the rest zero:
  /// one load where eight bytes lie within `bytes`, else byte by byte.
  @inline(__always)
  private static func word(_ bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) -> UInt64 {
    if bytes.count &- offset >= 8 {
      let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      return count == 8 ? word : word & (1 &<< UInt64(count &* 8) &- 1)
    }
    var word: UInt64 = 0
    for index in 0..<count {
      word |= UInt64(bytes[offset &+ index]) &<< UInt64(index &* 8)
    }
    return word
  }

  /// A part's place in the lookup.
  @inline(__always)
  private static func place(of word: UInt64, count: Int) -> Int {
    Int(truncatingIfNeeded: ((word ^ UInt64(count)) &* 0x9E37_79B9_7F4A_7C15) >> 55)
  }
}
