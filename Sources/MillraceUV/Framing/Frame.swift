/// One decoded request: a list of byte-string parts (RESP arguments, inline words, or a single
/// line for line framing).
///
/// A frame shares its decoder's buffer (copy-on-write) instead of copying the bytes: producing a
/// frame allocates nothing in the common case where the frame is dropped before the decoder is
/// used again. Keeping a frame longer is safe (it is a value and never changes), but makes the
/// decoder copy its buffer on its next write; copy out what you keep (`arguments`, `string(at:)`)
/// when a reply is produced later.
public struct Frame: RandomAccessCollection, Sendable {
  /// The parts' start index, always 0.
  public var startIndex: Int { 0 }
  /// One past the last part.
  public var endIndex: Int { single == nil ? ranges.count : 1 }

  @usableFromInline let storage: [UInt8]
  @usableFromInline let ranges: [Range<Int>]
  @usableFromInline let single: Range<Int>?

  /// Whether the frame came from an inline command (a plain text line) rather than a RESP array.
  /// Always `false` for line framing, where every frame is a line.
  public let isInline: Bool

  init(storage: [UInt8], ranges: [Range<Int>], isInline: Bool) {
    self.storage = storage
    self.ranges = ranges
    self.single = nil
    self.isInline = isInline
  }

  init(storage: [UInt8], line: Range<Int>) {
    self.storage = storage
    self.ranges = []
    self.single = line
    self.isInline = false
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
    storage[single ?? ranges[index]]
  }

  /// Part `index` decoded as UTF-8 (invalid sequences become U+FFFD).
  public func string(at index: Int) -> String {
    String(decoding: self[index], as: UTF8.self)
  }

  /// Every part copied into its own array.
  public var arguments: [[UInt8]] { map { Array($0) } }

  /// Every part decoded as UTF-8.
  public var strings: [String] { indices.map { string(at: $0) } }

  /// Whether part `index` equals `word` ignoring ASCII case (command names are
  /// case-insensitive), without allocating.
  public func part(_ index: Int, equalsIgnoringCase word: StaticString) -> Bool {
    let bytes = self[index]
    guard bytes.count == word.utf8CodeUnitCount else { return false }
    return word.withUTF8Buffer { expected in
      var position = bytes.startIndex
      for byte in expected {
        if asciiLower(bytes[position]) != asciiLower(byte) { return false }
        position += 1
      }
      return true
    }
  }
}

@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
  byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}
