/// Strings in words (byte 0 the length, then the bytes), compared and copied a word at a time.
@usableFromInline
enum _StringWords {
  /// The low `count` bytes (in memory order) of `word`, the others zeroed; `count` in 1...7.
  @inlinable @inline(__always)
  static func _prefix(_ word: UInt64, bytes count: Int) -> UInt64 {
    let mask = (UInt64(1) << UInt64(8 * count)) &- 1
    return (UInt64(littleEndian: word) & mask).littleEndian
  }

  /// Whether the strings at `left` and `right` are equal (length and bytes, whatever follows
  /// them); nil when a length is over `maximum`, the most either can hold.
  @inlinable
  static func _equal(
    _ left: UnsafePointer<UInt64>, _ right: UnsafePointer<UInt64>, maximum: Int
  ) -> Bool? {
    let length = UnsafeRawPointer(left).load(as: UInt8.self)
    guard length == UnsafeRawPointer(right).load(as: UInt8.self) else { return false }
    guard Int(length) <= maximum else { return nil }
    let bytes = 1 + Int(length)
    let whole = bytes >> 3
    var index = 0
    while index < whole {
      if left[index] != right[index] { return false }
      index += 1
    }
    let rest = bytes & 7
    return rest == 0
      || _prefix(left[whole], bytes: rest) == _prefix(right[whole], bytes: rest)
  }

  /// Copies the string at `source` (at most `maximum` bytes) to the `words` words at
  /// `destination`, zeroing what follows it; false, copying nothing, when its length is over
  /// `maximum` or does not fit. Reads no source word past the string's bytes.
  @inlinable
  static func _copy(
    from source: UnsafePointer<UInt64>, maximum: Int, to destination: UnsafeMutablePointer<UInt64>,
    words: Int
  ) -> Bool {
    let length = Int(UnsafeRawPointer(source).load(as: UInt8.self))
    guard length <= maximum, length < 8 * words else { return false }
    var remaining = 1 + length
    var index = 0
    while index < words {
      let word =
        remaining >= 8
        ? source[index] : remaining > 0 ? _prefix(source[index], bytes: remaining) : 0
      destination[index] = word
      remaining = max(remaining &- 8, 0)
      index &+= 1
    }
    return true
  }
}
