import Testing

@testable import MillraceHost

/// The names' hash reads every byte of every length: its loads overlap, and none may leave a
/// byte out.
@Suite struct NameHashTests {
  private let nameHash = NameHash(seed: 0x5EED)

  private func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { nameHash($0) } }

  /// A name of each length up to 40 hashes differently when any one of its bytes changes, and
  /// differently from the same bytes one shorter or longer.
  @Test func everyByteOfEveryLengthCounts() {
    for length in 0...40 {
      let name = (0..<length).map { UInt8(ascii: "a") &+ UInt8($0 % 26) }
      let original = hash(name)
      #expect(original != 0)
      for position in 0..<length {
        var changed = name
        changed[position] ^= 0x01
        #expect(hash(changed) != original, "length \(length), byte \(position)")
      }
      #expect(hash(name + [0]) != original, "length \(length), a zero byte after it")
    }
  }

  /// The hash is the same for the same bytes wherever they lie (the loads depend only on the
  /// name's own bytes, not on what surrounds them).
  @Test func bytesAloneDecide() {
    for length in 0...24 {
      let name = (0..<length).map { UInt8(truncatingIfNeeded: 7 &* $0 &+ 3) }
      let padded = [0xFF, 0xFF, 0xFF] + name + [0xEE, 0xEE]
      let inside = padded.withUnsafeBytes {
        nameHash(UnsafeRawBufferPointer(rebasing: $0[3..<(3 + length)]))
      }
      #expect(inside == hash(name), "length \(length)")
    }
  }
}
