import MillraceHost
import Testing

/// Regressions found by the fuzz targets in `Fuzz/` (docs/reliability.md).
@Suite("Reliability: fuzzing regressions")
struct ReliabilityRegressionTests {
  /// `Fuzz/run.sh replies`: a bulk length near Int.max overflowed `position + length + 2`
  /// and trapped the client (millctl) instead of waiting for more bytes.
  @Test("a reply announcing a bulk string of Int.max bytes does not trap the client")
  func hugeBulkLength() throws {
    var parser = RESPReplyParser()
    parser.append(Array("$09223372036854775807\r\n+\n".utf8))
    #expect(try parser.next() == nil)
    var other = RESPReplyParser()
    other.append(Array("*1\r\n$9223372036854775807\r\nabc\r\n".utf8))
    #expect(try other.next() == nil)
  }

  /// Arrays nested thousands deep recursed once per level: refused past `maxDepth` instead of
  /// overflowing the stack.
  @Test("deeply nested arrays are malformed, not a stack overflow")
  func deepNesting() throws {
    var parser = RESPReplyParser()
    parser.append(Array(String(repeating: "*1\r\n", count: 100_000).utf8) + Array(":1\r\n".utf8))
    #expect(throws: RESPReplyParser.Malformed.self) { try parser.next() }
    var shallow = RESPReplyParser()
    shallow.append(Array(String(repeating: "*1\r\n", count: 100).utf8) + Array(":1\r\n".utf8))
    var value = try #require(try shallow.next())
    for _ in 0..<100 {
      guard case .array(let inner?) = value, inner.count == 1 else {
        Issue.record("not nested: \(value)")
        return
      }
      value = inner[0]
    }
    #expect(value == .integer(1))
  }
}
