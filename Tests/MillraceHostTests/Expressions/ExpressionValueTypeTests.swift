import Testing

@testable import MillraceHost

/// Value types: their sizes in words, and their text forms read and printed.
@Suite struct ExpressionValueTypeTests {
  @Test func wordCounts() {
    #expect(ValueType.int.words == 1)
    #expect(ValueType.bool.words == 1)
    #expect(ValueType.string(max: 1).words == 1)
    #expect(ValueType.string(max: 7).words == 1)
    #expect(ValueType.string(max: 8).words == 2)
    #expect(ValueType.string(max: 16).words == 3)
    #expect(ValueType.string(max: 64).words == 9)
  }

  @Test(
    arguments: [
      ("0", 0), ("42", 42), ("-7", -7), ("007", 7), ("-0", 0),
      ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
    ] as [(String, Int64)])
  func integers(text: String, value: Int64) throws {
    #expect(try ValueType.int.parse(text) == [UInt64(bitPattern: value)])
    #expect(ValueType.int.format([UInt64(bitPattern: value)]) == String(value))
  }

  @Test(arguments: [
    ("abc", "expected an integer, got \"abc\""),
    ("", "expected an integer, got \"\""),
    ("-", "expected an integer, got \"-\""),
    ("+1", "expected an integer, got \"+1\""),
    ("1 ", "expected an integer, got \"1 \""),
    ("1.5", "expected an integer, got \"1.5\""),
    ("9223372036854775808", "integer out of the 64-bit range, got \"9223372036854775808\""),
    ("-9223372036854775809", "integer out of the 64-bit range, got \"-9223372036854775809\""),
    (
      String(repeating: "x", count: 50),
      "expected an integer, got \"\(String(repeating: "x", count: 40))...\""
    ),
  ])
  func badIntegers(text: String, message: String) {
    #expect(throws: ValueTextError(message: message)) { try ValueType.int.parse(text) }
  }

  @Test func booleans() throws {
    #expect(try ValueType.bool.parse("true") == [1])
    #expect(try ValueType.bool.parse("false") == [0])
    #expect(ValueType.bool.format([1]) == "true")
    #expect(ValueType.bool.format([0]) == "false")
    for text in ["TRUE", "1", "", "truex", "fals"] {
      #expect(throws: ValueTextError(message: "expected true or false, got \"\(text)\"")) {
        try ValueType.bool.parse(text)
      }
    }
  }

  @Test func stringsAreLengthThenBytesThenZeros() throws {
    let words = try ValueType.string(max: 16).parse("hello, world!")
    #expect(words.count == 3)
    let bytes = words.withUnsafeBytes { Array($0) }
    #expect(bytes[0] == 13)
    #expect(Array(bytes[1...13]) == Array("hello, world!".utf8))
    #expect(bytes[14...].allSatisfy { $0 == 0 })
    #expect(ValueType.string(max: 16).format(words) == "hello, world!")
    #expect(try ValueType.string(max: 4).parse("") == [0])
    #expect(ValueType.string(max: 4).format([0]) == "")
    #expect(try ValueType.string(max: 5).parse("élan").count == 1)
  }

  @Test func parsingOverwritesEveryWordOfAString() throws {
    var words: [UInt64] = [.max, .max, .max]
    let text: [UInt8] = Array("ab".utf8)
    try text.withUnsafeBytes { bytes in
      try words.withUnsafeMutableBufferPointer { words in
        try ValueType.string(max: 16).parse(bytes, into: words.baseAddress!)
      }
    }
    #expect(words == (try stringWords("ab", max: 16)))
    #expect(words[1] == 0 && words[2] == 0)
  }

  @Test func badStrings() {
    #expect(throws: ValueTextError(message: "longer than 16 bytes")) {
      try ValueType.string(max: 16).parse(String(repeating: "a", count: 17))
    }
    #expect(throws: ValueTextError(message: "longer than 4 bytes")) {
      try ValueType.string(max: 4).parse("élans")
    }
    var words: [UInt64] = [7, 7]
    for invalid: [UInt8] in [
      [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x61, 0x80],
    ] {
      #expect(throws: ValueTextError(message: "not valid UTF-8")) {
        try invalid.withUnsafeBytes { bytes in
          try words.withUnsafeMutableBufferPointer { words in
            try ValueType.string(max: 8).parse(bytes, into: words.baseAddress!)
          }
        }
      }
    }
    #expect(words == [7, 7], "a refused value leaves the destination unchanged")
  }

  @Test func formatReadsAtMostTheMaximum() {
    // A corrupt length byte (200) reads as the type's maximum.
    let words: [UInt64] = [0x6362_61C8, 0]
    #expect(ValueType.string(max: 3).format(words) == "abc")
  }

  @Test func utf8ValidationAgreesWithTheStandardLibrary() {
    var generator = SystemRandomNumberGenerator()
    let interesting: [UInt8] = [
      0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
      0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...6, using: &generator)
      let bytes = (0..<count).map { _ in interesting.randomElement(using: &generator)! }
      let expected = String(validating: bytes, as: UTF8.self) != nil
      #expect(bytes.withUnsafeBytes { isValidUTF8($0) } == expected, "\(bytes)")
    }
  }
}
