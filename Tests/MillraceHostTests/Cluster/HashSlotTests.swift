import Testing

@testable import MillraceHost

/// Hash slots as Redis computes them: each expected value below is what `CLUSTER KEYSLOT`
/// answered on a redis-server 7.0.15 in cluster mode.
@Suite struct HashSlotTests {
  @Test(arguments: [
    ("foo", 12182), ("bar", 5061), ("a", 15495), ("door", 8632), ("dev:1000000", 2168),
    ("123456789", 12739), ("", 0), ("A", 6373), ("{user1000}.following", 3443),
    ("{user1000}.followers", 3443), ("pump:{A}", 6373), ("pump:{A}:b", 6373),
    // An empty first tag: the whole key is hashed.
    ("foo{}{bar}", 8363), ("{}", 15257), ("a{}", 6082), ("m:{}:x", 2281),
    // The first `{` and the first `}` after it.
    ("foo{{bar}}zap", 4015), ("{bar", 4015), ("{{}}", 4092), ("x{y}z{w}", 12222),
    // No `}` after the `{`, or only before it: the whole key.
    ("{a", 10276), ("a}", 5921), ("}{a}", 15495),
  ])
  func redisValues(_ key: String, _ slot: Int) {
    #expect(Int(HashSlot.of(key)) == slot, "\(key)")
  }

  @Test func crcCheckValue() {
    // CRC16-XMODEM's published check value, before the slot's modulo.
    let crc = Array("123456789".utf8).withUnsafeBytes { HashSlot.crc16($0) }
    #expect(crc == 0x31C3)
  }

  @Test func taggedNamesShareASlot() {
    for tag in ["A", "user1000", "x", "0"] {
      let slots = ["{\(tag)}", "pump:{\(tag)}", "pump:{\(tag)}:b", "{\(tag)}.z{q}"].map {
        HashSlot.of($0)
      }
      #expect(Set(slots) == [HashSlot.of(tag)], "\(tag)")
    }
  }

  @Test func namesSpreadOverTheSlots() {
    // 50,000 names reach about 15,000 slots (14,904); a CRC that ignored bytes or a wrong
    // mask would leave most of them empty.
    let slots = Set((0..<50_000).map { HashSlot.of("machine-\($0)") })
    #expect(slots.count > 12_000)
    #expect(slots.allSatisfy { Int($0) < HashSlot.count })
  }
}
