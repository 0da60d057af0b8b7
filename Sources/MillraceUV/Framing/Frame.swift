/// One decoded request: a list of byte-string parts (RESP arguments, inline words, or a single
/// line for line framing).
///
/// A frame shares its decoder's buffer (copy-on-write) instead of copying the bytes: producing a
/// frame allocates nothing in the common case where the frame is dropped before the decoder is
/// used again. Keeping a frame longer is safe (it is a value and never changes), but makes the
/// decoder copy its buffer on its next write; copy out what you keep (`arguments`, `string(at:)`)
/// when a reply is produced later. The parts' ranges of a frame of up to three parts (most
/// requests) are stored inline, so making and dropping one costs a single reference count.
public struct Frame: RandomAccessCollection, Sendable {
  /// Where the parts are in `storage`.
  @usableFromInline
  enum Parts: Sendable {
    /// Up to three parts, inline; `count` of them are used.
    case inline(count: Int, Range<Int>, Range<Int>, Range<Int>)
    /// Any number of parts.
    case list([Range<Int>])
  }

  /// The parts' start index, always 0.
  @inlinable
  public var startIndex: Int { 0 }
  /// One past the last part.
  @inlinable
  public var endIndex: Int {
    switch parts {
    case .inline(let count, _, _, _): count
    case .list(let ranges): ranges.count
    }
  }

  @usableFromInline let storage: [UInt8]
  @usableFromInline let parts: Parts

  /// Whether the frame came from an inline command (a plain text line) rather than a RESP array.
  /// Always `false` for line framing, where every frame is a line.
  public let isInline: Bool

  init(storage: [UInt8], ranges: borrowing [Range<Int>], isInline: Bool) {
    self.storage = storage
    switch ranges.count {
    case 1: parts = .inline(count: 1, ranges[0], 0..<0, 0..<0)
    case 2: parts = .inline(count: 2, ranges[0], ranges[1], 0..<0)
    case 3: parts = .inline(count: 3, ranges[0], ranges[1], ranges[2])
    default: parts = .list(copy ranges)
    }
    self.isInline = isInline
  }

  init(storage: [UInt8], line: Range<Int>) {
    self.storage = storage
    self.parts = .inline(count: 1, line, 0..<0, 0..<0)
    self.isInline = false
  }

  /// Where part `index` is in `storage`.
  @inlinable
  func range(of index: Int) -> Range<Int> {
    switch parts {
    case .inline(let count, let first, let second, let third):
      precondition(index >= 0 && index < count, "Frame part index out of range")
      return index == 0 ? first : index == 1 ? second : third
    case .list(let ranges):
      return ranges[index]
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
  @inlinable
  public func part(_ index: Int, equalsIgnoringCase word: StaticString) -> Bool {
    let range = range(of: index)
    guard range.count == word.utf8CodeUnitCount else { return false }
    return storage.withUnsafeBufferPointer { bytes in
      word.withUTF8Buffer { expected in
        var position = range.lowerBound
        for byte in expected {
          if asciiLower(bytes[position]) != asciiLower(byte) { return false }
          position += 1
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
