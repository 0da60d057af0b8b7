import MillraceClient
import Testing

@Suite struct RESPValueTests {
  @Test(arguments: [
    ("NOMACHINE no machine x", "NOMACHINE"),
    ("REJECTED inc in 0", "REJECTED"),
    ("ERR wrong number of arguments for 'send' command", "ERR"),
    ("BUSY", "BUSY"),
    ("", ""),
  ])
  func theErrorCodeIsTheFirstWord(_ text: String, _ code: String) {
    #expect(RESPValue.error(text).errorCode == code)
  }

  @Test func onlyErrorsHaveACode() {
    for value in [RESPValue.simple("ERR x"), .bulk("ERR x"), .null, .array(nil)] {
      #expect(value.errorCode == nil)
    }
  }

  @Test func stringsAndElements() {
    let mixed: [RESPValue] = [
      .bulk("a"), .simple("b"), .integer(1), .bulk(nil), .verbatim(format: "txt", text: "c"),
    ]
    for aggregate in [RESPValue.array(mixed), .set(mixed), .push(mixed)] {
      #expect(aggregate.elements == mixed)
      #expect(aggregate.strings == ["a", "b", "c"])
    }
    #expect(RESPValue.array(nil).elements == nil)
    #expect(RESPValue.map([]).elements == nil)
    #expect(RESPValue.bulk(nil).string == nil)
    #expect(RESPValue.integer(1).string == nil)
  }

  @Test func mapsAndRESP2KeyValueArraysAreLookedUpByKey() {
    let map = RESPValue.map([
      .init(.simple("proto"), .integer(3)), .init(.bulk("mode"), .bulk("standalone")),
      .init(.integer(1), .bulk("number key")), .init(.bulk("proto"), .integer(9)),
    ])
    #expect(map["proto"] == .integer(3))
    #expect(map["mode"] == .bulk("standalone"))
    #expect(map["1"] == nil)
    #expect(map["absent"] == nil)
    let flat = RESPValue.array([.bulk("server"), .bulk("redis"), .bulk("proto"), .integer(2)])
    #expect(flat["proto"] == .integer(2))
    #expect(flat["redis"] == nil, "values are not keys")
    #expect(RESPValue.array([.bulk("odd")])["odd"] == nil)
    #expect(RESPValue.set([.bulk("k"), .bulk("v")])["k"] == nil)
  }

  @Test(arguments: [
    (RESPValue.simple("OK"), "OK"),
    (.error("ERR x"), "(error) ERR x"),
    (.integer(-3), "(integer) -3"),
    (.bulk("text"), "text"),
    (.bulk(nil), "(nil)"),
    (.array(nil), "(nil)"),
    (.null, "(nil)"),
    (.double(1.5), "(double) 1.5"),
    (.double(-.infinity), "(double) -inf"),
    (.boolean(true), "(true)"),
    (.boolean(false), "(false)"),
    (.bigNumber("-123456789012345678901"), "(big number) -123456789012345678901"),
    (.verbatim(format: "txt", text: "plain"), "plain"),
    (.array([]), "(empty array)"),
    (.set([]), "(empty set)"),
    (.map([]), "(empty hash)"),
    (.push([]), "(empty push)"),
    (.array([.bulk("off"), .bulk("on")]), "1) off\n2) on"),
    (.set([.integer(1), .integer(2)]), "1~ (integer) 1\n2~ (integer) 2"),
    (.push([.bulk("message"), .bulk("d")]), "1) message\n2) d"),
    (.map([.init(.bulk("proto"), .integer(3))]), "1# proto => (integer) 3"),
    (
      .array([.bulk("a"), .array([.bulk("b"), .array([.bulk("c"), .null])])]),
      "1) a\n2) 1) b\n   2) 1) c\n      2) (nil)"
    ),
    (
      .map([.init(.bulk("modules"), .array([.bulk("x"), .bulk("y")]))]),
      "1# modules => 1) x\n              2) y"
    ),
  ])
  func printsLikeRedisCLI(_ value: RESPValue, _ text: String) {
    #expect(value.description == text)
  }
}
