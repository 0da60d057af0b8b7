import Testing

@testable import MillraceWire

/// The decoders' one input buffer: appends that drop what was decoded, and the line search.
@Suite struct InputBufferTests {
  /// Appends `text` keeping from `keep`; returns how many bytes were dropped.
  static func append(_ text: String, to buffer: inout InputBuffer, keepingFrom keep: Int) -> Int {
    Array(text.utf8).withUnsafeBytes { buffer.append($0, keepingFrom: keep) }
  }

  static func received(_ buffer: InputBuffer) -> String {
    String(decoding: buffer.storage[0..<buffer.count], as: UTF8.self)
  }

  @Test func appendsAtTheEndAndGrowsToFit() {
    var buffer = InputBuffer()
    #expect(Self.append("hello ", to: &buffer, keepingFrom: 0) == 0)
    #expect(Self.append(String(repeating: "w", count: 1000), to: &buffer, keepingFrom: 0) == 0)
    #expect(buffer.count == 1006)
    #expect(buffer.storage.count >= 1006)
    #expect(Self.received(buffer) == "hello " + String(repeating: "w", count: 1000))
    #expect(buffer[0] == UInt8(ascii: "h") && buffer[1005] == UInt8(ascii: "w"))
  }

  @Test func whenEverythingWasDecodedTheNextAppendStartsAtZero() {
    var buffer = InputBuffer()
    _ = Self.append("PING\r\n", to: &buffer, keepingFrom: 0)
    let room = buffer.storage.count
    #expect(Self.append("ECHO\r\n", to: &buffer, keepingFrom: 6) == 6)
    #expect(Self.received(buffer) == "ECHO\r\n")
    #expect(buffer.storage.count == room)
  }

  @Test func bytesStillNeededMoveOnlyWhenTheRoomIsShort() {
    var buffer = InputBuffer()
    _ = Self.append(String(repeating: "x", count: 100), to: &buffer, keepingFrom: 0)
    #expect(Self.append("done|part", to: &buffer, keepingFrom: 100) == 100)
    let room = buffer.storage.count
    // Room for the new bytes after the end: nothing moves, positions stay.
    #expect(Self.append("ial", to: &buffer, keepingFrom: 5) == 0)
    #expect(Self.received(buffer) == "done|partial")
    // No room: the decoded bytes before `keep` go, the rest moves to the front, in order.
    let filler = String(repeating: "f", count: room - buffer.count + 1)
    #expect(Self.append(filler, to: &buffer, keepingFrom: 5) == 5)
    #expect(Self.received(buffer) == "partial" + filler)
    #expect(buffer.storage.count == room, "dropping made the room; the buffer did not grow")
  }

  @Test func anEmptyAppendChangesNothing() {
    var buffer = InputBuffer()
    _ = Self.append("abc", to: &buffer, keepingFrom: 0)
    #expect(Self.append("", to: &buffer, keepingFrom: 3) == 0)
    #expect(Self.received(buffer) == "abc")
  }

  @Test func storageSharedWithAFrameIsNotChangedByLaterAppends() {
    var buffer = InputBuffer()
    _ = Self.append("first\n", to: &buffer, keepingFrom: 0)
    let shared = buffer.storage
    for _ in 0..<50 { _ = Self.append("other line\n", to: &buffer, keepingFrom: buffer.count) }
    #expect(String(decoding: shared[0..<6], as: UTF8.self) == "first\n")
  }

  @Test func linesEndInLFOrCRLFAndTheSearchGoesOnFromTheScan() throws {
    var buffer = InputBuffer()
    _ = Self.append("ab\r\ncd\n\r\n\rx", to: &buffer, keepingFrom: 0)
    let first = try #require(buffer.line(from: 0, searchingFrom: 0))
    #expect(first.content == 0..<2 && first.next == 4)
    let second = try #require(buffer.line(from: 4, searchingFrom: 4))
    #expect(second.content == 4..<6 && second.next == 7)
    // A lone `\r\n` is an empty line.
    let third = try #require(buffer.line(from: 7, searchingFrom: 7))
    #expect(third.content == 7..<7 && third.next == 9)
    // `\rx` has no `\n` yet. The next append drops the 9 bytes before it (no room), so the
    // line starts at 0 and the search goes on from 2 (the end of the last search, 11, minus 9).
    #expect(buffer.line(from: 9, searchingFrom: 9) == nil)
    #expect(Self.append("y\n", to: &buffer, keepingFrom: 9) == 9)
    let fourth = try #require(buffer.line(from: 0, searchingFrom: 2))
    #expect(fourth.content == 0..<3 && fourth.next == 4)
    #expect(Self.received(buffer) == "\rxy\n")
  }

  @Test func onlyATrailingCarriageReturnIsCut() {
    var buffer = InputBuffer()
    _ = Self.append("a\rb\r", to: &buffer, keepingFrom: 0)
    #expect(buffer.withoutCarriageReturn(0..<4) == 0..<3)
    #expect(buffer.withoutCarriageReturn(0..<3) == 0..<3)
    #expect(buffer.withoutCarriageReturn(2..<2) == 2..<2)
  }
}
