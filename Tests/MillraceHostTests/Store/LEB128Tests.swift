import Testing

@testable import MillraceHost

/// `LEB128.read` reads a varint of two or more bytes a word at a time where eight bytes are
/// left, and byte by byte nearer the end: both must accept exactly the shortest forms, with the
/// same values and the same offsets after them.
@Suite("LEB128 varints")
struct LEB128Tests {
  /// `read` of `bytes` at `offset`: the value and the offset after it (the offset unchanged
  /// for nil).
  static func read(_ bytes: [UInt8], at offset: Int, bytewise: Bool = false) -> (UInt64?, Int) {
    var at = offset
    let value = bytes.withUnsafeBytes {
      bytewise ? LEB128.readBytewise($0, at: &at) : LEB128.read($0, at: &at)
    }
    return (value, at)
  }

  /// `value` written by `LEB128.write`.
  static func encoded(_ value: UInt64) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: LEB128.size(of: value))
    bytes.withUnsafeMutableBufferPointer {
      var cursor = $0.baseAddress!
      LEB128.write(value, at: &cursor)
    }
    return bytes
  }

  @Test("every length round-trips, at the end of the bytes and with bytes after it")
  func roundTrip() {
    var values: [UInt64] = [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, .max, 1 << 63, (1 << 63) - 1]
    for bits in 1...64 {
      values.append(UInt64.max >> (64 - bits))
      values.append(1 << (bits - 1))
    }
    for value in values {
      let bytes = Self.encoded(value)
      #expect(bytes.count == LEB128.size(of: value))
      for (prefix, suffix) in [(0, 0), (3, 0), (0, 1), (1, 9), (5, 12)] {
        let framed =
          [UInt8](repeating: 0xFF, count: prefix) + bytes + [UInt8](repeating: 0x85, count: suffix)
        let (read, after) = Self.read(framed, at: prefix)
        #expect(read == value, "\(value) at \(prefix) with \(suffix) after")
        #expect(after == prefix + bytes.count)
      }
    }
  }

  @Test("longer forms, an 11th byte, a 64th bit with company and cut-off varints are refused")
  func refused() {
    let cases: [[UInt8]] = [
      [0x80, 0x00],  // 0 in two bytes
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0, 0, 0],  // 8 bytes, last 0
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0, 0],  // 9 bytes, last 0
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00],  // 10 bytes, last 0
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],  // a 65th bit
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00],  // an 11th byte
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // cut off after 9
      [0x80, 0x80, 0x80],  // cut off after 3
      [],
    ]
    for bytes in cases {
      for bytewise in [false, true] {
        let (value, after) = Self.read(bytes, at: 0, bytewise: bytewise)
        #expect(value == nil, "\(bytes) (bytewise: \(bytewise))")
        #expect(after == 0)
      }
    }
  }

  @Test("reading a word at a time agrees with reading byte by byte, on random bytes")
  func agreesWithBytewise() {
    var generator = SystemRandomNumberGenerator()
    var lengths = [Int: Int]()
    for _ in 0..<20_000 {
      let count = Int.random(in: 1...14, using: &generator)
      // Mostly continued bytes, so that long varints and every end position come up.
      let bytes = (0..<count).map { _ in
        UInt8.random(in: 0...255, using: &generator) | (Bool.random(using: &generator) ? 0x80 : 0)
      }
      let offset = Int.random(in: 0..<count, using: &generator)
      let (value, after) = Self.read(bytes, at: offset)
      let (expected, expectedAfter) = Self.read(bytes, at: offset, bytewise: true)
      #expect(value == expected, "\(bytes) at \(offset)")
      #expect(after == expectedAfter, "\(bytes) at \(offset)")
      if value != nil { lengths[after - offset, default: 0] += 1 }
    }
    // The random bytes reached both ways of reading for most lengths.
    #expect((2...9).allSatisfy { lengths[$0, default: 0] > 0 }, "\(lengths)")
  }
}
