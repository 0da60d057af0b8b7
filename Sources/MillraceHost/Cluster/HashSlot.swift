/// Redis Cluster's hash slots, computed exactly as Redis computes them (`keyHashSlot` in
/// Redis's `cluster.c`), so that a cluster client's own routing and the daemon's agree: the
/// CRC16 of the key (the XMODEM variant: polynomial 0x1021, initial value 0, no reflection),
/// modulo 16,384.
///
/// Hash tags: when the key holds a `{` and, after it, a `}` with at least one byte between
/// them, only the bytes between the first `{` and the first `}` after it are hashed, so
/// `pump:{A}` and `pump:{A}:b` share a slot. `foo{}{bar}` (the first pair is empty) hashes
/// whole; `foo{{bar}}zap` hashes `{bar`.
///
/// Computing a slot neither allocates nor makes a `String`.
public enum HashSlot {
  /// How many slots a cluster has; slots are `0..<count`.
  public static let count = 16_384

  /// The slot of the key whose bytes are `key`.
  public static func of(_ key: UnsafeRawBufferPointer) -> UInt16 {
    UInt16(crc16(hashedPart(of: key)) & UInt16(count - 1))
  }

  /// The slot of `key` (its UTF-8 bytes).
  public static func of(_ key: String) -> UInt16 {
    key.withUTF8Bytes { of($0) }
  }

  /// The bytes Redis hashes: the hash tag's, or the whole key's.
  static func hashedPart(of key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key }
    let rest = UnsafeRawBufferPointer(rebasing: key[(open + 1)...])
    guard let close = rest.firstIndex(of: UInt8(ascii: "}")), close > 0 else { return key }
    return UnsafeRawBufferPointer(rebasing: rest[..<close])
  }

  /// CRC16-XMODEM (CCITT polynomial 0x1021, initial value 0) of `bytes`.
  static func crc16(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
    var crc: UInt16 = 0
    table.withUnsafeBufferPointer { table in
      for byte in bytes {
        crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
      }
    }
    return crc
  }

  /// The CRC of each byte value, shifted in (Redis's `crc16tab`, computed).
  private static let table: [UInt16] = (0..<256).map { value in
    var crc = UInt16(value) << 8
    for _ in 0..<8 {
      crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
    }
    return crc
  }
}
