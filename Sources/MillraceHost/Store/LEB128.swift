/// Unsigned LEB128 varints of up to 64 bits, in their shortest form only: what the store's
/// compact encodings (`TimerEncoding`, `ImageChunk`) use for lengths and numbers, so that each
/// value has exactly one encoding.
enum LEB128 {
  /// The bytes `write(value, at:)` writes: 1 to 10.
  static func size(of value: UInt64) -> Int {
    value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
  }

  /// Writes `value` at `cursor` (which must have room for `size(of: value)` bytes) and moves
  /// it past them.
  static func write(_ value: UInt64, at cursor: inout UnsafeMutablePointer<UInt8>) {
    var value = value
    while value >= 0x80 {
      cursor.pointee = UInt8(truncatingIfNeeded: value) | 0x80
      cursor += 1
      value >>= 7
    }
    cursor.pointee = UInt8(value)
    cursor += 1
  }

  /// The varint at `offset` of `bytes`, moving `offset` past it; nil (and `offset` unchanged)
  /// when the bytes there are not a whole shortest-form varint of at most 64 bits.
  @inline(__always)
  static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
    // One byte, inline: the lengths of names, kinds, states and inputs, and most numbers of a
    // timer (a restart reads about ten per machine).
    if offset < bytes.count, bytes[offset] < 0x80 {
      defer { offset &+= 1 }
      return UInt64(bytes[offset])
    }
    return readLonger(bytes, at: &offset)
  }

  /// `read` past its one-byte case: with eight bytes to read, the varint's end is found and
  /// its 7-bit groups joined in one word (a timer's deadline, span and effect id take 6 to 10
  /// bytes each); nearer the end of `bytes`, byte by byte.
  private static func readLonger(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
    guard offset >= 0, bytes.count &- offset >= 8 else { return readBytewise(bytes, at: &offset) }
    let word = UInt64(
      littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    // A clear high bit ends the varint.
    let ends = ~word & 0x8080_8080_8080_8080
    guard ends != 0 else { return readNinthAndTenth(bytes, at: &offset, low: joined(word)) }
    let length = (ends.trailingZeroBitCount &+ 1) &>> 3
    let lastShift = UInt64(length &- 1) &* 8
    // A last byte of 0 after others is a longer form of a shorter varint.
    guard length == 1 || (word &>> lastShift) & 0xFF != 0 else { return nil }
    let kept = length == 8 ? word : word & ((1 &<< (lastShift &+ 8)) &- 1)
    offset &+= length
    return joined(kept)
  }

  /// The value of a varint whose first eight bytes are all continued: those bytes' 56 bits and
  /// the ninth byte's 7, or the ninth's 7 and a tenth byte of exactly 1 (the 64th bit alone).
  private static func readNinthAndTenth(
    _ bytes: UnsafeRawBufferPointer, at offset: inout Int, low: UInt64
  ) -> UInt64? {
    let ninth = offset &+ 8
    guard ninth < bytes.count else { return nil }
    let byte = bytes[ninth]
    if byte < 0x80 {
      guard byte != 0 else { return nil }
      offset = ninth &+ 1
      return low | UInt64(byte) &<< 56
    }
    guard ninth &+ 1 < bytes.count, bytes[ninth &+ 1] == 1 else { return nil }
    offset = ninth &+ 2
    return low | UInt64(byte & 0x7F) &<< 56 | 1 &<< 63
  }

  /// The 7-bit groups of the eight bytes of `word` (little-endian) joined, their high bits
  /// dropped: 56 bits.
  @inline(__always)
  private static func joined(_ word: UInt64) -> UInt64 {
    var value = word & 0x7F7F_7F7F_7F7F_7F7F
    value = (value & 0x007F_007F_007F_007F) | (value & 0x7F00_7F00_7F00_7F00) &>> 1
    value = (value & 0x0000_3FFF_0000_3FFF) | (value & 0x3FFF_0000_3FFF_0000) &>> 2
    value = (value & 0x0000_0000_0FFF_FFFF) | (value & 0x0FFF_FFFF_0000_0000) &>> 4
    return value
  }

  /// `read`, one byte at a time: what the word reading must agree with.
  static func readBytewise(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var at = offset
    while at >= 0 && at < bytes.count {
      let byte = bytes[at]
      at += 1
      // The tenth byte holds the 64th bit alone.
      guard shift < 63 || byte <= 1 else { return nil }
      value |= UInt64(byte & 0x7F) << shift
      guard byte & 0x80 != 0 else {
        // A last byte of 0 after others is a longer form of a shorter varint.
        guard byte != 0 || at == offset + 1 else { return nil }
        offset = at
        return value
      }
      shift += 7
    }
    return nil
  }
}
