import Testing

@testable import MillraceHost

/// `ShortParts`: a checkpoint's short state parts, each kept once by number.
@Suite struct ShortPartsTests {
  @Test func aPartKeepsItsNumberAndItsBytesWhereverItLies() {
    var parts = ShortParts()
    defer { parts.deallocate() }
    // "on" and "off" as parts (a count byte, then the text), twice each, the last at the very
    // end of the bytes (read byte by byte there), with other bytes around them.
    let bytes: [UInt8] =
      [9, 2] + Array("on".utf8) + [7, 3] + Array("off".utf8) + [0xFF, 2]
      + Array("on".utf8) + [3] + Array("off".utf8)
    bytes.withUnsafeBytes { bytes in
      let on = parts.number(of: bytes, at: 1, count: 3)
      let off = parts.number(of: bytes, at: 5, count: 4)
      #expect(on == 0 && off == 1 && parts.count == 2)
      #expect(parts.number(of: bytes, at: 10, count: 3) == on)
      #expect(parts.number(of: bytes, at: bytes.count - 4, count: 4) == off)
      #expect(Array(parts.part(0)) == [2] + Array("on".utf8))
      #expect(Array(parts.part(1)) == [3] + Array("off".utf8))
      // The same bytes of another count are another part.
      #expect(parts.number(of: bytes, at: 1, count: 2) == 2)
      #expect(Array(parts.part(2)) == [2] + Array("o".utf8))
    }
  }

  @Test func partsPastTheRoomGetNoNumberAndThoseGivenStay() {
    var parts = ShortParts()
    defer { parts.deallocate() }
    var numbered: [[UInt8]: Int] = [:]
    var refused = 0
    for value in 0..<2000 {
      let part = (0..<8).map { UInt8(truncatingIfNeeded: (value &* 2_654_435_761) >> ($0 * 4)) }
      let number = part.withUnsafeBytes { parts.number(of: $0, at: 0, count: 8) }
      if let number {
        if let earlier = numbered[part] { #expect(number == earlier) }
        numbered[part] = number
      } else {
        refused += 1
      }
    }
    // A part's place taken by another part, or every number given: no number, the others
    // kept as they were.
    #expect(refused > 0 && parts.count == ShortParts.capacity)
    #expect(Set(numbered.values).count == numbered.count && numbered.count == parts.count)
    for (part, number) in numbered { #expect(Array(parts.part(number)) == part) }
  }
}
