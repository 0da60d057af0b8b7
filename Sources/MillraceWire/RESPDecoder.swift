/// Incremental decoder of RESP2 *requests*: arrays of bulk strings (`*N\r\n$len\r\n...\r\n`)
/// and inline commands (one line, split into words with Redis's quotes and escapes, see
/// `InlineSplitter`), as Redis accepts them.
///
/// Guarantees:
/// - Works for any split of the input, one byte at a time included, and never rescans more than
///   a header's few bytes: decoding is linear in the input. Steady-state decoding does not
///   allocate: the buffer and the argument list keep their capacity (see `Frame` for how a frame
///   shares the buffer). The one exception is an inline command with quotes, whose decoded
///   words get storage of their own (at most the line's length).
/// - A frame is at most `maxFrameLength` bytes *on the wire* (headers, CRLFs and data). A longer
///   one throws `.tooLong` as soon as a header proves it, without waiting for its bytes; this
///   also bounds the argument count (each argument takes at least 6 bytes).
/// - Malformed input throws `.protocol(reason)`: a bad count or length, a missing `$`, a missing
///   CRLF, an inline command with unbalanced quotes (reason `"unbalanced quotes in request"`).
///   Inline lines without words and empty or null arrays (`*0`, `*-1`) are skipped, like Redis.
/// - Errors are terminal: once `next()` threw, it throws the same error until `reset()` (a server
///   replies `-ERR toolong` / `-ERR protocol` and closes the connection).
/// - Memory stays below `maxFrameLength` plus the bytes appended since the last `next()`.
public struct RESPDecoder: FrameDecoder {
  /// The default maximum frame length, 64 KiB.
  public static let defaultMaxFrameLength = 64 * 1024

  /// The longest accepted request, in bytes on the wire.
  public let maxFrameLength: Int

  private enum State: Equatable, Sendable {
    case idle
    case arrayHeader
    case bulkHeader(remaining: Int)
    case bulkBody(remaining: Int, length: Int)
    case inline(scan: Int)
  }

  private var buffer = InputBuffer()
  private var frameStart = 0
  private var cursor = 0
  private var state = State.idle
  private var ranges: [Range<Int>] = []
  private var failure: FramingError?

  /// Creates a decoder for requests of at most `maxFrameLength` bytes.
  public init(maxFrameLength: Int = RESPDecoder.defaultMaxFrameLength) {
    precondition(maxFrameLength >= 16, "maxFrameLength must be at least 16 bytes")
    self.maxFrameLength = maxFrameLength
  }

  /// Bytes appended and not yet consumed by a returned frame.
  public var bufferedByteCount: Int { buffer.count - (state == .idle ? cursor : frameStart) }

  /// Appends input bytes (copied into the decoder's buffer).
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    // The frame being decoded, or after a frame the next byte, is the first one still needed.
    let dropped = buffer.append(bytes, keepingFrom: state == .idle ? cursor : frameStart)
    guard dropped > 0 else { return }
    cursor -= dropped
    frameStart = max(0, frameStart - dropped)
    for index in ranges.indices {
      ranges[index] = ranges[index].lowerBound - dropped..<ranges[index].upperBound - dropped
    }
    if case .inline(let scan) = state { state = .inline(scan: scan - dropped) }
  }

  /// Returns the next complete request, or `nil` when more input is needed.
  public mutating func next() throws(FramingError) -> Frame? {
    // The common request, a whole short array at the start of what is buffered, without the
    // state machine.
    if state == .idle && failure == nil {
      guard cursor < buffer.count else { return nil }
      if buffer[cursor] == UInt8(ascii: "*") {
        frameStart = cursor
        if !ranges.isEmpty { ranges.removeAll(keepingCapacity: true) }
        if let frame = wholeArray() { return frame }
      }
    }
    if let failure { throw failure }
    do {
      return try step()
    } catch {
      failure = error
      throw error
    }
  }

  /// Forgets all buffered input and any error.
  public mutating func reset() {
    buffer.removeAll()
    ranges.removeAll(keepingCapacity: true)
    frameStart = 0
    cursor = 0
    state = .idle
    failure = nil
  }

  private mutating func step() throws(FramingError) -> Frame? {
    while true {
      switch state {
      case .idle:
        guard cursor < buffer.count else { return nil }
        frameStart = cursor
        if !ranges.isEmpty { ranges.removeAll(keepingCapacity: true) }
        if buffer[cursor] == UInt8(ascii: "*") {
          if let frame = wholeArray() { return frame }
          cursor += 1
          state = .arrayHeader
        } else {
          state = .inline(scan: cursor)
        }

      case .arrayHeader:
        guard let count = try readNumber("multibulk length") else { return nil }
        if count <= 0 {
          state = .idle
          continue
        }
        // Each argument needs at least 6 bytes: "$0\r\n\r\n".
        if count > (maxFrameLength - (cursor - frameStart)) / 6 { throw .tooLong }
        state = .bulkHeader(remaining: count)

      case .bulkHeader(let remaining):
        guard cursor < buffer.count else { return nil }
        let byte = buffer[cursor]
        guard byte == UInt8(ascii: "$") else {
          throw .protocol("expected '$', got '\(printable(byte))'")
        }
        cursor += 1
        guard let length = try readNumber("bulk length") else {
          cursor -= 1
          return nil
        }
        guard length >= 0 else { throw .protocol("invalid bulk length") }
        let rest = (remaining - 1) * 6
        if cursor - frameStart + length + 2 + rest > maxFrameLength { throw .tooLong }
        state = .bulkBody(remaining: remaining, length: length)

      case .bulkBody(let remaining, let length):
        guard buffer.count - cursor >= length + 2 else { return nil }
        guard buffer[cursor + length] == 13, buffer[cursor + length + 1] == 10 else {
          throw .protocol("expected CRLF after a bulk string of \(length) bytes")
        }
        ranges.append(cursor..<cursor + length)
        cursor += length + 2
        if remaining == 1 {
          state = .idle
          return Frame(storage: buffer.storage, ranges: ranges, isInline: false)
        }
        state = .bulkHeader(remaining: remaining - 1)

      case .inline(let scan):
        guard let (line, next) = buffer.line(from: frameStart, searchingFrom: scan) else {
          if buffer.count - frameStart > maxFrameLength { throw .tooLong }
          state = .inline(scan: buffer.count)
          return nil
        }
        if next - frameStart > maxFrameLength { throw .tooLong }
        let decoded = try InlineSplitter.split(buffer.storage[line], into: &ranges)
        cursor = next
        state = .idle
        if ranges.isEmpty { continue }
        return Frame(storage: decoded ?? buffer.storage, ranges: ranges, isInline: true)
      }
    }
  }

  /// The fast path of the common request, a whole array of one to three bulk strings already
  /// buffered at `frameStart`: decoded in one pass over the bytes, its ranges kept in the
  /// frame itself. Returns nil, changing nothing, for anything else (incomplete, malformed, over
  /// the limit, another count, a length of more than 9 digits); the state machine then decodes
  /// it from the start, byte for byte as before, so errors and limits behave exactly the same.
  private mutating func wholeArray() -> Frame? {
    let start = frameStart
    let limit = maxFrameLength
    let received = buffer.count
    guard
      let found = buffer.storage.withUnsafeBufferPointer({
        Self.shortArray(in: UnsafeBufferPointer(rebasing: $0[..<received]), at: start, limit: limit)
      })
    else { return nil }
    cursor = found.end
    return Frame(
      storage: buffer.storage, count: found.count, found.parts.0, found.parts.1, found.parts.2,
      isInline: false)
  }

  /// `*N\r\n` with N from 1 to 3, then N times `$length\r\n<bytes>\r\n`, all in `bytes` from
  /// `start`, within `limit`: where it ends, N and the parts' ranges.
  private static func shortArray(
    in bytes: UnsafeBufferPointer<UInt8>, at start: Int, limit: Int
  ) -> (end: Int, count: Int, parts: (Range<Int>, Range<Int>, Range<Int>))? {
    guard let base = bytes.baseAddress else { return nil }
    let end = bytes.count
    guard end &- start >= 4, base[start &+ 2] == 13, base[start &+ 3] == 10 else { return nil }
    let count = Int(base[start &+ 1] &- UInt8(ascii: "0"))
    // Each argument needs at least 6 bytes: "$0\r\n\r\n".
    guard count >= 1 && count <= 3, count &* 6 <= limit &- 4 else { return nil }
    // Wrapping arithmetic: positions are below the buffer's size and lengths below 10^9.
    var position = start &+ 4
    /// The part at `position` (`$`, one to nine digits, CRLF, the bytes, CRLF), with
    /// `following` parts of at least 6 bytes still to come within the limit; moves past it.
    func part(following: Int) -> Range<Int>? {
      guard end &- position >= 4, base[position] == UInt8(ascii: "$") else { return nil }
      let digitsStart = position &+ 1
      let digitsEnd = min(end, digitsStart &+ 9)
      var index = digitsStart
      var length = 0
      while index < digitsEnd {
        let digit = base[index] &- UInt8(ascii: "0")
        if digit >= 10 { break }
        length = length &* 10 &+ Int(digit)
        index &+= 1
      }
      guard index > digitsStart, end &- index >= 2, base[index] == 13, base[index &+ 1] == 10
      else { return nil }
      let data = index &+ 2
      let after = data &+ length &+ 2
      guard after &- start &+ following &* 6 <= limit, after <= end,
        base[after &- 2] == 13, base[after &- 1] == 10
      else { return nil }
      position = after
      return Range(uncheckedBounds: (data, data &+ length))
    }
    guard let first = part(following: count &- 1) else { return nil }
    guard count > 1 else { return (position, 1, (first, 0..<0, 0..<0)) }
    guard let second = part(following: count &- 2) else { return nil }
    guard count > 2 else { return (position, 2, (first, second, 0..<0)) }
    guard let third = part(following: 0) else { return nil }
    return (position, 3, (first, second, third))
  }

  /// Reads `-?[0-9]+\r\n` at `cursor`; `nil` when incomplete. Advances past the CRLF.
  private mutating func readNumber(_ what: StaticString) throws(FramingError) -> Int? {
    let limit = min(buffer.count, cursor + 21)
    var carriageReturn = cursor
    while carriageReturn < limit && buffer[carriageReturn] != 13 { carriageReturn += 1 }
    if carriageReturn == limit {
      if limit - cursor >= 21 { throw .protocol("invalid \(what)") }
      return nil
    }
    guard carriageReturn + 1 < buffer.count else { return nil }
    guard buffer[carriageReturn + 1] == 10 else { throw .protocol("expected CRLF after \(what)") }
    var position = cursor
    var negative = false
    if buffer[position] == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    guard position < carriageReturn, carriageReturn - position <= 18 else {
      throw .protocol("invalid \(what)")
    }
    var value = 0
    while position < carriageReturn {
      let digit = buffer[position] &- UInt8(ascii: "0")
      guard digit < 10 else { throw .protocol("invalid \(what)") }
      value = value * 10 + Int(digit)
      position += 1
    }
    cursor = carriageReturn + 2
    return negative ? -value : value
  }

  private func printable(_ byte: UInt8) -> String {
    byte >= 0x20 && byte < 0x7F
      ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
  }
}
