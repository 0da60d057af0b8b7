/// The hash of names by their UTF-8 bytes, seeded: a multiply–xorshift hash, 8 bytes per step,
/// whose seed is random per instance unless a test fixes it, so which names collide differs
/// from one index and one run to the next (a client cannot pick names that all collide).
///
/// Never 0, so that an index may use 0 to mark an empty slot. Neither allocates nor makes a
/// `String`.
struct NameHash: Sendable {
  /// The seed every hash starts from.
  let seed: UInt64

  /// A hash seeded at random.
  init() {
    self.init(seed: .random(in: 1...UInt64.max))
  }

  /// A hash seeded with `seed`: the same names hash the same in every run (for tests).
  init(seed: UInt64) {
    self.seed = seed
  }

  /// The hash of `bytes` (never 0). Every byte is read through whole loads, none one at a
  /// time: eight at a time, the last eight overlapping the ones before them when the count is
  /// not a multiple of eight; names shorter than eight as two overlapping halves (or three
  /// bytes). Each load covers bytes of the name only, and together they cover all of them, so
  /// that names of one length differ in what is mixed whenever they differ.
  @inline(__always)
  func callAsFunction(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    let count = bytes.count
    var hash = seed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
    if count >= 8 {
      var offset = 0
      while offset &+ 8 < count {
        hash = Self.mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        offset &+= 8
      }
      hash = Self.mix(hash ^ bytes.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
    } else if count >= 4 {
      let first = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
      let last = UInt64(bytes.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
      hash = Self.mix(hash ^ (first &<< 32 | last))
    } else if count > 0 {
      let word =
        UInt64(bytes[0]) &<< 16 | UInt64(bytes[count &>> 1]) &<< 8 | UInt64(bytes[count &- 1])
      hash = Self.mix(hash ^ word)
    }
    return hash == 0 ? 1 : hash
  }

  /// SplitMix64's finalizer: every output bit depends on every input bit.
  @inline(__always)
  private static func mix(_ value: UInt64) -> UInt64 {
    var value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

extension UInt64 {
  /// The bits in reverse order: bit 0 becomes bit 63 (Redis's `SCAN` cursor steps on it).
  var bitsReversed: UInt64 {
    var value = byteSwapped
    value = (value & 0x0F0F_0F0F_0F0F_0F0F) << 4 | (value >> 4) & 0x0F0F_0F0F_0F0F_0F0F
    value = (value & 0x3333_3333_3333_3333) << 2 | (value >> 2) & 0x3333_3333_3333_3333
    return (value & 0x5555_5555_5555_5555) << 1 | (value >> 1) & 0x5555_5555_5555_5555
  }

  /// Redis's `SCAN` cursor step over a table of `mask + 1` buckets: one added to the bucket
  /// number with its bits reversed, so that a cursor of a smaller table names, in a larger
  /// one, every bucket that split from it. 0 after the last bucket.
  func nextScanCursor(mask: UInt64) -> UInt64 {
    ((self | ~mask).bitsReversed &+ 1).bitsReversed
  }
}
