import MillraceClient
import MillraceWire
import Testing

/// The reply parser reads every RESP2 and RESP3 type, nested, however the bytes arrive.
@Suite struct RESPReplyParserTests {
  /// One reply of each kind, with what it parses to. (Computed, not a stored global: an
  /// indirect enum's boxes are held through pointers that carry tag bits, which LeakSanitizer
  /// does not recognise, so a global holding them reads as a leak under `make sanitize`.)
  static var everyType: [(bytes: String, value: RESPValue)] {
    [
      ("+OK\r\n", .simple("OK")),
      ("+\r\n", .simple("")),
      ("-ERR unknown command 'X'\r\n", .error("ERR unknown command 'X'")),
      (":-42\r\n", .integer(-42)),
      (":9223372036854775807\r\n", .integer(.max)),
      ("$5\r\nhello\r\n", .bulk("hello")),
      ("$0\r\n\r\n", .bulk("")),
      ("$4\r\na\r\nb\r\n", .bulk("a\r\nb")),
      ("$-1\r\n", .bulk(nil)),
      ("*-1\r\n", .array(nil)),
      ("*0\r\n", .array([])),
      ("*2\r\n$4\r\nopen\r\n:1\r\n", .array([.bulk("open"), .integer(1)])),
      ("_\r\n", .null),
      (",1.5\r\n", .double(1.5)),
      (",10\r\n", .double(10)),
      (",-1.25e3\r\n", .double(-1250)),
      (",inf\r\n", .double(.infinity)),
      (",-inf\r\n", .double(-.infinity)),
      ("#t\r\n", .boolean(true)),
      ("#f\r\n", .boolean(false)),
      (
        "(3492890328409238509324850943850943825024385\r\n",
        .bigNumber("3492890328409238509324850943850943825024385")
      ),
      ("(-12\r\n", .bigNumber("-12")),
      ("=15\r\ntxt:Some string\r\n", .verbatim(format: "txt", text: "Some string")),
      ("=4\r\nmkd:\r\n", .verbatim(format: "mkd", text: "")),
      ("!21\r\nSYNTAX invalid syntax\r\n", .error("SYNTAX invalid syntax")),
      (
        "%2\r\n+first\r\n:1\r\n$6\r\nsecond\r\n_\r\n",
        .map([.init(.simple("first"), .integer(1)), .init(.bulk("second"), .null)])
      ),
      ("%0\r\n", .map([])),
      ("~3\r\n+a\r\n:1\r\n#f\r\n", .set([.simple("a"), .integer(1), .boolean(false)])),
      ("~0\r\n", .set([])),
      (
        ">3\r\n$7\r\nmessage\r\n$1\r\nd\r\n$11\r\nopen closed\r\n",
        .push([.bulk("message"), .bulk("d"), .bulk("open closed")])
      ),
      (">0\r\n", .push([])),
      // An attribute is dropped, whatever it holds; the value after it is the reply.
      ("|1\r\n+key-popularity\r\n*2\r\n$1\r\na\r\n,0.5\r\n$2\r\nhi\r\n", .bulk("hi")),
      ("|0\r\n:7\r\n", .integer(7)),
    ]
  }

  /// Aggregates in aggregates, with an attribute inside that counts for no element.
  static var nested: (bytes: String, value: RESPValue) {
    (
      "*4\r\n%1\r\n+k\r\n~2\r\n#t\r\n_\r\n|1\r\n+a\r\n%1\r\n+b\r\n+c\r\n>1\r\n*1\r\n*0\r\n"
        + ",2.5\r\n*1\r\n%1\r\n*-1\r\n=5\r\ntxt:x\r\n",
      .array([
        .map([.init(.simple("k"), .set([.boolean(true), .null]))]),
        .push([.array([.array([])])]),
        .double(2.5),
        .array([.map([.init(.array(nil), .verbatim(format: "txt", text: "x"))])]),
      ])
    )
  }

  /// Parses `input` appended in pieces cut at `cuts` (ascending offsets).
  func parse(_ input: [UInt8], cuts: [Int] = []) -> (values: [RESPValue], malformed: Bool) {
    var parser = RESPReplyParser()
    var values: [RESPValue] = []
    var start = 0
    for end in cuts + [input.count] {
      parser.append(input[start..<end])
      start = end
      do {
        while let value = try parser.next() { values.append(value) }
      } catch {
        return (values, true)
      }
    }
    return (values, false)
  }

  @Test(arguments: everyType)
  func readsEveryType(bytes: String, value: RESPValue) {
    let outcome = parse(Array(bytes.utf8))
    #expect(outcome.values == [value] && !outcome.malformed, "\(bytes.debugDescription)")
  }

  @Test func notANumberIsADouble() throws {
    var parser = RESPReplyParser()
    parser.append(Array(",nan\r\n".utf8))
    guard case .double(let value)? = try parser.next() else {
      Issue.record("not a double")
      return
    }
    #expect(value.isNaN)
  }

  @Test func readsNestedAggregates() {
    let outcome = parse(Array(Self.nested.bytes.utf8))
    #expect(outcome.values == [Self.nested.value] && !outcome.malformed)
  }

  /// Every reply above in one stream, cut once at every offset, and one byte at a time.
  @Test func anySplitGivesTheSameReplies() {
    let replies = Self.everyType + [Self.nested]
    let input = Array(replies.map(\.bytes).joined().utf8)
    let expected = replies.map(\.value)
    let everyByte = Array(1..<input.count)
    for cuts in [[]] + everyByte.map({ [$0] }) + [everyByte] {
      let outcome = parse(input, cuts: cuts)
      #expect(outcome.values == expected && !outcome.malformed, "cut at \(cuts.prefix(3))")
    }
  }

  @Test func incompleteRepliesWaitForTheirBytes() throws {
    var parser = RESPReplyParser()
    for piece in ["*2\r\n$3\r\nab", "c\r\n", "%1\r\n+k\r", "\n", "|1\r\n+a\r\n+b\r\n"] {
      parser.append(Array(piece.utf8))
      #expect(try parser.next() == nil, "after \(piece.debugDescription)")
    }
    parser.append(Array("#t\r\n".utf8))
    let expected = RESPValue.array([.bulk("abc"), .map([.init(.simple("k"), .boolean(true))])])
    #expect(try parser.next() == expected)
    #expect(try parser.next() == nil)
  }

  @Test(arguments: [
    "?x\r\n", ":abc\r\n", ":\r\n", "$-2\r\n", "$x\r\n", "$3\r\nabcde\r\n", "_x\r\n", "#x\r\n",
    "#tt\r\n", ",abc\r\n", ",\r\n", "(12a\r\n", "(\r\n", "(-\r\n", "=3\r\ntxt\r\n",
    "=5\r\ntxtxx\r\n", "!-1\r\n", "*-2\r\n", "~-1\r\n", ">-1\r\n", "%-1\r\n", "|-1\r\n",
    "$?\r\n", "*?\r\n", "%4611686018427387904\r\n", "*1\r\n*1\r\n;x\r\n",
  ])
  func malformedRepliesThrowForGood(_ bytes: String) {
    var parser = RESPReplyParser()
    parser.append(Array(bytes.utf8))
    #expect(throws: RESPReplyParser.Malformed.self) { try parser.next() }
    parser.append(Array("+OK\r\n".utf8))
    #expect(throws: RESPReplyParser.Malformed.self, "the error is terminal") {
      try parser.next()
    }
  }

  @Test func depthIsBounded() throws {
    func nested(_ depth: Int) -> [UInt8] {
      Array((String(repeating: "*1\r\n", count: depth) + ":1\r\n").utf8)
    }
    var deep = RESPReplyParser()
    deep.append(nested(RESPReplyParser.maxDepth))
    var value = try #require(try deep.next())
    for _ in 0..<RESPReplyParser.maxDepth { value = try #require(value.elements?.first) }
    #expect(value == .integer(1))
    var tooDeep = RESPReplyParser()
    tooDeep.append(nested(RESPReplyParser.maxDepth + 1))
    #expect(throws: RESPReplyParser.Malformed.self) { try tooDeep.next() }
  }

  /// What the daemon's writer encodes in RESP3, this parser reads back.
  @Test func readsWhatTheRESP3WriterWrites() throws {
    var writer = RESPWriter(version: .resp3)
    writer.mapHeader(2)
    writer.bulkString("server")
    writer.bulkString("millraced")
    writer.bulkString("modules")
    writer.arrayHeader(0)
    writer.setHeader(2)
    writer.boolean(true)
    writer.double(-0.5)
    writer.pushHeader(3)
    writer.bulkString("message")
    writer.bulkString("d")
    writer.verbatim("a:b")
    writer.null()
    writer.error("NOMACHINE", "no machine x")
    let outcome = parse(writer.bytes)
    #expect(!outcome.malformed)
    #expect(
      outcome.values == [
        .map([
          .init(.bulk("server"), .bulk("millraced")), .init(.bulk("modules"), .array([])),
        ]),
        .set([.boolean(true), .double(-0.5)]),
        .push([.bulk("message"), .bulk("d"), .verbatim(format: "txt", text: "a:b")]),
        .null,
        .error("NOMACHINE no machine x"),
      ])
  }
}
