import MillraceClient
import Testing

/// Regressions found by the fuzz targets in `Fuzz/` and by `scripts/load.sh`
/// (docs/reliability.md).
@Suite("Reliability: regressions")
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

  /// `scripts/load.sh`: a `STATE` pipelined behind `SEND`s answered with the state from before
  /// them (it ran when read, while the SENDs were still queued), and a pipelined `KILL` made
  /// the SENDs before it fail with `nomachine`. Pipelined requests now behave as if run one
  /// after the other.
  @Test("pipelined STATE, LIST and KILL see the effect of the SENDs before them")
  func pipelinedReadsSeeEarlierSends() throws {
    let daemon = try DaemonProcess(["--queue-capacity", "8"]).start()
    let client = try daemon.client()
    var batch = request(["SPAWN", "counter", "c"])
    for _ in 0..<100 { batch += request(["SEND", "c", "inc"]) }
    batch += request(["STATE", "c"]) + request(["SEND", "c", "inc"]) + request(["PING"])
    batch += request(["LIST"]) + request(["KILL", "c"]) + request(["STATE", "c"])
    try client.sendRaw(batch)
    #expect(try client.read() == .simple("OK"))
    for step in 0..<100 {
      #expect(try client.read().strings == ["\(step)", "\(step + 1)"])
    }
    #expect(try client.read() == .bulk("100"))
    #expect(try client.read().strings == ["100", "101"])
    #expect(try client.read() == .simple("PONG"))
    #expect(try client.read().strings == ["c"])
    #expect(try client.read() == .simple("OK"))
    #expect(try client.read().errorCode == "NOMACHINE")
    #expect(try client.call("PING") == .simple("PONG"))
  }
}
