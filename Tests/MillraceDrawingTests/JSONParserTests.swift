import Testing

@testable import MillraceDrawing

/// `JSONParser`: RFC 8259 values with their order kept, and an error, never a trap, for
/// anything else.
@Suite struct JSONParserTests {
  @Test func readsEveryKindOfValueKeepingMemberOrder() throws {
    let value = try JSONParser.parse(
      #" { "z": [1, -2.5e3, 0], "a": {"t": true, "f": false, "n": null}, "z": "again" } "#)
    let members = try #require(value.members)
    #expect(members.map(\.key) == ["z", "a", "z"])
    #expect(value["z"] == .array([.number("1"), .number("-2.5e3"), .number("0")]))
    #expect(
      value["a"]
        == .object([
          JSONMember(key: "t", value: .bool(true)), JSONMember(key: "f", value: .bool(false)),
          JSONMember(key: "n", value: .null),
        ]))
    #expect(try JSONParser.parse("[]") == .array([]))
    #expect(try JSONParser.parse("{}") == .object([]))
    #expect(try JSONParser.parse("\"\"") == .string(""))
  }

  @Test func decodesEscapesAndSurrogatePairs() throws {
    let value = try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\ud83d\ude00 é""#)
    #expect(value == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té€😀 é"))
  }

  @Test(arguments: [
    ("", "line 1, column 1: expected a value, found the end of the text"),
    ("{", "line 1, column 2: expected a key in double quotes, found the end of the text"),
    ("{\"a\" 1}", "line 1, column 6: expected \":\" after a key, found \"1\""),
    ("[1,]", "line 1, column 4: expected a value, found \"]\""),
    ("[1 2]", "line 1, column 4: expected \",\" or \"]\", found \"2\""),
    ("{\"a\":1,}", "line 1, column 8: expected a key in double quotes, found \"}\""),
    ("\n  tru", "line 2, column 3: expected true, found \"t\""),
    ("01", "line 1, column 2: \"1\" after the value"),
    ("-", "line 1, column 2: expected a digit, found the end of the text"),
    ("1.", "line 1, column 3: expected a digit after \".\", found the end of the text"),
    ("1e+", "line 1, column 4: expected a digit in the exponent, found the end of the text"),
    ("\"abc", "line 1, column 5: the string does not end"),
    ("\"a\u{01}\"", "line 1, column 3: a control character (byte 0x1) in a string"),
    ("\"\\x\"", "line 1, column 3: unknown escape \"\\x\""),
    ("\"\\u12\"", "line 1, column 6: expected four hexadecimal digits after \\u, found \"\"\""),
    ("\"\\udc00\"", "line 1, column 8: a lone low surrogate in \\u escapes"),
    ("\"\\ud800x\"", "line 1, column 8: a high surrogate not followed by a \\u low surrogate"),
    ("\"é\" x", "line 1, column 5: \"x\" after the value"),
    ("// no\n{}", "line 1, column 1: expected a value, found \"/\""),
  ])
  func refusesWhatIsNotJSON(text: String, expected: String) {
    do {
      let value = try JSONParser.parse(text)
      Issue.record("\(text.debugDescription) parsed as \(value)")
    } catch {
      #expect(error.description == expected, "\(text.debugDescription)")
    }
  }

  @Test func nestingIsBoundedAtTheDaemonsDepth() throws {
    let deepest =
      String(repeating: "[", count: JSONParser.maxDepth)
      + String(repeating: "]", count: JSONParser.maxDepth)
    #expect(throws: Never.self) { try JSONParser.parse(deepest) }
    let tooDeep = String(repeating: "[", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(tooDeep) }
    let objects = String(repeating: "{\"a\":", count: JSONParser.maxDepth + 1)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(objects) }
  }

  /// Every prefix of a document and every one-byte change of it parses or fails cleanly.
  @Test func truncatedAndCorruptedTextNeverTraps() {
    let text = #"{"kind": "k", "a": [1, -2.5e-3, true, null, "x\u00e9\"\ud83d\ude00"], "b": {}}"#
    let bytes = Array(text.utf8)
    var failures = 0
    for end in 0..<bytes.count {
      if (try? JSONParser.parse(String(decoding: bytes[..<end], as: UTF8.self))) == nil {
        failures += 1
      }
    }
    #expect(failures == bytes.count)
    for position in bytes.indices {
      for replacement in [0x00, 0x22, 0x5C, 0x7B, 0x5D, 0x2C, 0xFF] as [UInt8] {
        var changed = bytes
        changed[position] = replacement
        _ = try? JSONParser.parse(String(decoding: changed, as: UTF8.self))
      }
    }
  }
}
