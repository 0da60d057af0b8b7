import MillraceWire
import Testing

/// Replies encoded in RESP2, and in RESP3 where the client asked for it.
@Suite("RESP writer")
struct RESPWriterTests {
  @Test func writerEncodesEveryReplyKind() {
    var writer = RESPWriter()
    writer.simpleString("OK")
    writer.error("TOOLONG", "frame exceeds\r\n64 KiB")
    writer.integer(-42)
    writer.integer(0)
    writer.integer(Int.min)
    writer.bulkString("hé")
    writer.bulkString([UInt8]())
    writer.null()
    writer.nullArray()
    writer.array(["a", "bc"])
    let expected =
      "+OK\r\n-TOOLONG frame exceeds  64 KiB\r\n:-42\r\n:0\r\n:-9223372036854775808\r\n"
      + "$3\r\nhé\r\n$0\r\n\r\n$-1\r\n*-1\r\n*2\r\n$1\r\na\r\n$2\r\nbc\r\n"
    #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
  }

  @Test func writerFallsBackToRESP2AndSpeaksRESP3() {
    func encode(_ version: RESPVersion) -> String {
      var writer = RESPWriter(version: version)
      writer.mapHeader(1)
      writer.bulkString("k")
      writer.null()
      writer.setHeader(1)
      writer.boolean(true)
      writer.pushHeader(2)
      writer.double(1.5)
      writer.double(-.infinity)
      writer.verbatim("a:1")
      writer.nullArray()
      return String(decoding: writer.bytes, as: UTF8.self)
    }
    #expect(
      encode(.resp2)
        == "*2\r\n$1\r\nk\r\n$-1\r\n*1\r\n:1\r\n*2\r\n$3\r\n1.5\r\n$4\r\n-inf\r\n"
        + "$3\r\na:1\r\n*-1\r\n")
    #expect(
      encode(.resp3)
        == "%1\r\n$1\r\nk\r\n_\r\n~1\r\n#t\r\n>2\r\n,1.5\r\n,-inf\r\n=7\r\ntxt:a:1\r\n_\r\n")
  }
}
