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

  /// `read` past its one-byte case.
  private static func readLonger(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var at = offset
    while at < bytes.count {
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
