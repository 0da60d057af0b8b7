/// One decoded request: a list of byte-string parts (RESP arguments, inline words, or a single
/// line for line framing).
///
/// A frame shares its decoder's buffer (copy-on-write) instead of copying the bytes: producing a
/// frame allocates nothing in the common case where the frame is dropped before the decoder is
/// used again. (An inline command with quotes is the exception: its words, unescaped, are not
/// the bytes received, so its frame has storage of its own.) Keeping a frame longer is safe (it is a value and never changes), but makes the
/// decoder copy its buffer on its next write; copy out what you keep (`arguments`, `string(at:)`)
/// when a reply is produced later. The parts' ranges of a frame of up to three parts (most
/// requests) are stored inline, so making and dropping one costs a single reference count.
public struct Frame: RandomAccessCollection, Sendable {
  // Plain stored properties of concrete types, no enum: copying and destroying a frame is two
  // reference counts, not the generic value witnesses a multi-payload enum of ranges needs.
  @usableFromInline let storage: [UInt8]
  @usableFromInline let partCount: Int
  /// The first three parts' ranges (unused ones empty).
  @usableFromInline let first: Range<Int>
  @usableFromInline let second: Range<Int>
  @usableFromInline let third: Range<Int>
  /// Every part's range, for frames of more than three parts; nil otherwise.
  @usableFromInline let all: [Range<Int>]?

  /// Whether the frame came from an inline command (a plain text line) rather than a RESP array.
  /// Always `false` for line framing, where every frame is a line.
  public let isInline: Bool

  /// The parts' start index, always 0.
  @inlinable
  public var startIndex: Int { 0 }
  /// One past the last part.
  @inlinable
  public var endIndex: Int { partCount }

  /// A frame of up to three parts whose ranges are given one by one.
  init(
    storage: [UInt8], count: Int, _ first: Range<Int>, _ second: Range<Int> = 0..<0,
    _ third: Range<Int> = 0..<0, all: [Range<Int>]? = nil, isInline: Bool
  ) {
    self.storage = storage
    self.partCount = count
    self.first = first
    self.second = second
    self.third = third
    self.all = all
    self.isInline = isInline
  }

  init(storage: [UInt8], ranges: borrowing [Range<Int>], isInline: Bool) {
    let count = ranges.count
    self.init(
      storage: storage, count: count, count > 0 ? ranges[0] : 0..<0,
      count > 1 ? ranges[1] : 0..<0, count > 2 ? ranges[2] : 0..<0,
      all: count > 3 ? copy ranges : nil, isInline: isInline)
  }

  init(storage: [UInt8], line: Range<Int>) {
    self.init(storage: storage, count: 1, line, isInline: false)
  }

  /// Where part `index` is in `storage`.
  @inlinable
  func range(of index: Int) -> Range<Int> {
    precondition(index >= 0 && index < partCount, "Frame part index out of range")
    switch index {
    case 0: return first
    case 1: return second
    case 2: return third
    default: return all![index]
    }
  }

  /// Builds a frame from parts (for tests and for synthesising requests).
  public init(_ parts: [[UInt8]]) {
    var storage: [UInt8] = []
    var ranges: [Range<Int>] = []
    for part in parts {
      ranges.append(storage.count..<storage.count + part.count)
      storage.append(contentsOf: part)
    }
    self.init(storage: storage, ranges: ranges, isInline: false)
  }

  /// The bytes of part `index`, without copying.
  @inlinable
  public subscript(index: Int) -> ArraySlice<UInt8> {
    storage[range(of: index)]
  }

  /// Calls `body` with the bytes of part `index`, in place.
  @inlinable
  public func withUnsafeBytes<Result>(
    of index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) rethrows -> Result {
    let range = range(of: index)
    return try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
  }

  /// Calls `body` with the bytes of every part from `start` on, in order (an empty buffer
  /// when there are none); the pointers are valid during the call only.
  public func withArguments<Result>(
    from start: Int, _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Result
  ) rethrows -> Result {
    try storage.withUnsafeBytes { bytes in
      let parts = (start..<Swift.max(start, partCount)).map {
        UnsafeRawBufferPointer(rebasing: bytes[range(of: $0)])
      }
      return try parts.withUnsafeBufferPointer(body)
    }
  }

  /// Part `index` decoded as UTF-8 (invalid sequences become U+FFFD).
  @inlinable
  public func string(at index: Int) -> String {
    String(decoding: self[index], as: UTF8.self)
  }

  /// Every part copied into its own array.
  public var arguments: [[UInt8]] { map { Array($0) } }

  /// Every part decoded as UTF-8.
  public var strings: [String] { indices.map { string(at: $0) } }

  /// Whether part `index` equals `word` ignoring ASCII case (command names are
  /// case-insensitive), without allocating.
  ///
  /// Always inlined: the word is a literal at every call, whose bytes then fold into the
  /// comparison (a call compared a 4-byte command name in about 110 instructions).
  @inlinable @inline(__always)
  public func part(_ index: Int, equalsIgnoringCase word: StaticString) -> Bool {
    let range = range(of: index)
    guard range.count == word.utf8CodeUnitCount else { return false }
    // A part's range lies within the storage: no bounds check per byte (an empty storage
    // holds only empty parts, equal to an empty word).
    return storage.withUnsafeBufferPointer { bytes in
      word.withUTF8Buffer { expected in
        guard let base = bytes.baseAddress else { return true }
        let part = base + range.lowerBound
        var position = 0
        while position < expected.count {
          guard asciiLower(part[position]) == asciiLower(expected[position]) else { return false }
          position &+= 1
        }
        return true
      }
    }
  }
}

@inlinable @inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
  byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}
