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
    ("", "line 1, column 1: expected a value, found end of file"),
    ("{", "line 1, column 2: expected a string key, found end of file"),
    ("{\"a\" 1}", "line 1, column 6: expected \":\" after the key, found character \"1\""),
    ("[1,]", "line 1, column 4: trailing comma before \"]\""),
    ("[1 2]", "line 1, column 4: expected \",\" or \"]\", found character \"2\""),
    ("[1 \"", "line 1, column 4: expected \",\" or \"]\", found character \"\\\"\""),
    ("{\"a\":1,}", "line 1, column 8: trailing comma before \"}\""),
    ("\n  tru", "line 2, column 3: expected a value, found character \"t\""),
    ("\u{7F}", "line 1, column 1: expected a value, found character (byte 0x7F)"),
    ("01", "line 1, column 1: invalid number"),
    ("-", "line 1, column 1: invalid number"),
    ("[0, 1.]", "line 1, column 5: invalid number"),
    ("1e+", "line 1, column 1: invalid number"),
    ("\"abc", "line 1, column 5: unterminated string"),
    (
      "\"a\u{01}\"",
      "line 1, column 3: control character in a string (write it as an escape, like \\n)"
    ),
    ("\"\\x\"", "line 1, column 3: invalid escape in a string"),
    ("\"\\u12\"", "line 1, column 6: expected four hex digits after \\u"),
    ("\"\\udc00\"", "line 1, column 8: unpaired surrogate escape"),
    ("\"\\ud800x\"", "line 1, column 8: unpaired surrogate escape"),
    ("\"\\ud800\\u0041\"", "line 1, column 14: invalid surrogate pair"),
    ("\"é\" x", "line 1, column 5: unexpected character \"x\" after the JSON value"),
    ("// no\n{}", "line 1, column 1: expected a value, found character \"/\""),
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
