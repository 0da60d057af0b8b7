import MillraceWire
import Testing

/// Inline commands split as Redis 7's `sdssplitargs` splits them. Every expected outcome below
/// was recorded from Debian's redis-server 7.0.15, by sending `RPUSH k <line>` and reading the
/// list back (`[]` where RPUSH got no value, nil where Redis answered `-ERR Protocol error:
/// unbalanced quotes in request` and closed the connection).
@Suite("Inline commands split like redis-server")
struct InlineCommandTests {
  static let cases: [(line: String, words: [String]?)] = [
    // Bare words: any blank before a word, only space, tab and CR after one.
    ("a b", ["a", "b"]),
    ("a\tb", ["a", "b"]),
    ("a\rb", ["a", "b"]),
    ("  a   b  ", ["a", "b"]),
    ("a\u{0B}b", ["a\u{0B}b"]),
    ("a\u{0C}b", ["a\u{0C}b"]),
    ("a\u{0B}", ["a\u{0B}"]),
    ("\u{0B}a", ["a"]),
    ("a \u{0B} b", ["a", "b"]),
    ("\u{0B}\u{0C}\t", []),
    ("é \"é\"", ["é", "é"]),
    // Double quotes and their escapes.
    (#""a b""#, ["a b"]),
    (#""a b" c"#, ["a b", "c"]),
    (#""\n\r\t\b\a\\\"""#, ["\n\r\t\u{08}\u{07}\\\""]),
    (#""\x41\x4a\x4A\xzz\x4""#, ["AJJxzzx4"]),
    (#""\x4G""#, ["x4G"]),
    (#""\X41""#, ["X41"]),
    (#""a\x""#, ["ax"]),
    (#""\x00""#, ["\0"]),
    (#""\q\'""#, ["q'"]),
    (#""a b\" c""#, ["a b\" c"]),
    ("\"a\rb\"", ["a\rb"]),
    ("\"a\tb\"", ["a\tb"]),
    (#""a'b""#, ["a'b"]),
    // Single quotes: only \' is an escape.
    ("'a b'", ["a b"]),
    (#"'a\'b'"#, ["a'b"]),
    (#"'a\nb'"#, [#"a\nb"#]),
    (#"'a\\b'"#, [#"a\\b"#]),
    (#"'a"b'"#, [#"a"b"#]),
    // Empty words, and quotes after bare bytes.
    (#""""#, [""]),
    ("''", [""]),
    (#""" """#, ["", ""]),
    (#"a"""#, ["a"]),
    (#"a"b c""#, ["ab c"]),
    ("a\u{0C}\"b c\"", ["a\u{0C}b c"]),
    // What may follow a closing quote: any blank, or the end of the line.
    ("\"a\"\u{0B}c", ["a", "c"]),
    ("\"a\"\u{0C}c", ["a", "c"]),
    ("\"a\"\rc", ["a", "c"]),
    ("\"a\"\tc", ["a", "c"]),
    ("\"a\"\r", ["a"]),
    ("\u{0C}\"a\" b", ["a", "b"]),
    // Malformed: something right after a closing quote.
    (#""a b"c"#, nil),
    (#"a"b c"d"#, nil),
    (#""a""b""#, nil),
    ("'a''b'", nil),
    (#""a"'b'"#, nil),
    ("a''b", nil),
    // Malformed: a quote never closed.
    (#""abc"#, nil),
    ("'abc", nil),
    (#""abc\""#, nil),
    (#""abc\"#, nil),
    (#"'abc\'"#, nil),
    (#"'\\'"#, nil),
    (#""\""#, nil),
    (#"a""#, nil),
    (#"a\"b"#, nil),
    ("a'b", nil),
  ]

  /// The outcome of decoding `input` cut after `cuts` (offsets, ascending): the frames' words
  /// and the error, if any.
  func decode(_ input: [UInt8], cuts: [Int]) -> (frames: [[[UInt8]]], error: FramingError?) {
    var decoder = RESPDecoder()
    var frames: [[[UInt8]]] = []
    var start = 0
    for end in cuts + [input.count] {
      decoder.append(input[start..<end])
      start = end
      do {
        while let frame = try decoder.next() {
          #expect(frame.isInline)
          frames.append(frame.arguments)
        }
      } catch {
        return (frames, error)
      }
    }
    return (frames, nil)
  }

  @Test(arguments: cases)
  func splitsLikeRedisAtEveryCut(line: String, words: [String]?) {
    // The line, then a PING that must still come out whole after it.
    let input = Array(line.utf8) + Array("\r\nPING\r\n".utf8)
    let expected: (frames: [[[UInt8]]], error: FramingError?) =
      switch words {
      case nil: ([], .protocol("unbalanced quotes in request"))
      case []?: ([[Array("PING".utf8)]], nil)
      case let words?: ([words.map { Array($0.utf8) }, [Array("PING".utf8)]], nil)
      }
    let everyByte = Array(1..<input.count)
    for cuts in [[]] + everyByte.map({ [$0] }) + [everyByte] {
      let outcome = decode(input, cuts: cuts)
      #expect(outcome.frames == expected.frames, "\(line.debugDescription) cut at \(cuts)")
      #expect(outcome.error == expected.error, "\(line.debugDescription) cut at \(cuts)")
    }
  }

  @Test func hexEscapesMakeAnyByte() throws {
    var decoder = RESPDecoder()
    decoder.append(Array(#"SET "\xff\x00\x80" 'x'"#.utf8) + [10])
    let frame = try #require(try decoder.next())
    #expect(frame.arguments == [Array("SET".utf8), [0xFF, 0, 0x80], Array("x".utf8)])
  }

  /// Redis reads the line as a C string and stops at a NUL (it even waits for more input, as it
  /// looks for the `\n` with `strchr`); this decoder is binary-safe and keeps it as a byte.
  @Test func nulIsAnOrdinaryByte() throws {
    var decoder = RESPDecoder()
    decoder.append(Array("a\0b c\n".utf8))
    #expect(try decoder.next()?.arguments == [[97, 0, 98], [99]])
  }

  @Test func unbalancedQuotesAreTerminal() throws {
    var decoder = RESPDecoder()
    decoder.append(Array("PING\r\nECHO \"x\r\nPING\r\n".utf8))
    #expect(try decoder.next()?.strings == ["PING"])
    let unbalanced = FramingError.protocol("unbalanced quotes in request")
    #expect(throws: unbalanced) { try decoder.next() }
    #expect(throws: unbalanced) { try decoder.next() }
  }

  @Test func quotedLinesKeepTheFrameLimit() throws {
    // `"` + 60 bytes + `"` + CRLF is 64 bytes on the wire: accepted at 64, refused at 63,
    // although the decoded word is shorter.
    let line = Array(("\"" + String(repeating: "\\t", count: 30) + "\"\r\n").utf8)
    var atLimit = RESPDecoder(maxFrameLength: 64)
    atLimit.append(line)
    #expect(try atLimit.next()?.arguments == [Array(repeating: 9, count: 30)])
    var underLimit = RESPDecoder(maxFrameLength: 63)
    underLimit.append(line)
    #expect(throws: FramingError.tooLong) { try underLimit.next() }
  }

  @Test func quotedFramesSurviveLaterDecoderWrites() throws {
    var decoder = RESPDecoder()
    decoder.append(Array("SEND \"a b\" 'c'\n".utf8))
    let kept = try #require(try decoder.next())
    for _ in 0..<100 { decoder.append(Array("SEND \"x y\" z\n".utf8)) }
    while try decoder.next() != nil {}
    #expect(kept.strings == ["SEND", "a b", "c"])
    #expect(kept.part(0, equalsIgnoringCase: "send"))
  }
}
