/// Incremental newline framing: splits a byte stream into lines ending in `\n` or `\r\n`.
///
/// Guarantees:
/// - Works for any split of the input (one byte at a time included); each byte is scanned once.
/// - Lines are returned without their terminator, as slices of the decoder's buffer (no copy;
///   the slice's indices are the buffer's, so use `startIndex`, not 0), or as one-part frames
///   sharing it (`next()`, the `FrameDecoder` way). The buffer's capacity is reused, so
///   steady-state decoding does not allocate.
/// - A line longer than `maxLineLength` bytes (terminator excluded) throws `.tooLong` once, as
///   soon as that is certain; the decoder then skips to the end of that line and carries on, so
///   the error is recoverable. Memory stays below `maxLineLength` plus one appended chunk.
/// - Never throws `.protocol`: every byte sequence is a sequence of lines.
public struct LineDecoder: FrameDecoder {
  /// The default maximum line length, 64 KiB.
  public static let defaultMaxLineLength = 64 * 1024

  /// The longest accepted line, in bytes, terminator excluded.
  public let maxLineLength: Int

  private var buffer = InputBuffer()
  /// Where the next line starts.
  private var start = 0
  /// Where the search for its `\n` goes on.
  private var scan = 0
  /// Skipping the rest of an over-long line.
  private var discarding = false

  /// Creates a decoder accepting lines of at most `maxLineLength` bytes.
  public init(maxLineLength: Int = LineDecoder.defaultMaxLineLength) {
    precondition(maxLineLength > 0, "maxLineLength must be positive")
    self.maxLineLength = maxLineLength
  }

  /// Bytes appended and not yet returned as lines.
  public var bufferedByteCount: Int { buffer.count - start }

  /// Appends input bytes (copied into the decoder's buffer).
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    let dropped = buffer.append(bytes, keepingFrom: start)
    start -= dropped
    scan -= dropped
  }

  /// Returns the next complete line, or `nil` when more input is needed. Throws `.tooLong` for
  /// an over-long line; calling `nextLine()` again continues after it.
  public mutating func nextLine() throws(FramingError) -> ArraySlice<UInt8>? {
    guard let line = try nextRange() else { return nil }
    return buffer.storage[line]
  }

  /// `nextLine()` as a one-part `Frame` sharing the buffer.
  public mutating func next() throws(FramingError) -> Frame? {
    guard let line = try nextRange() else { return nil }
    return Frame(storage: buffer.storage, line: line)
  }

  private mutating func nextRange() throws(FramingError) -> Range<Int>? {
    while true {
      guard let (line, next) = buffer.line(from: start, searchingFrom: scan) else {
        scan = buffer.count
        if discarding {
          start = buffer.count
        } else if buffer.count - start > maxLineLength + 1 {
          // +1: the last byte may be the `\r` of a line of exactly `maxLineLength` bytes.
          discarding = true
          start = buffer.count
          throw .tooLong
        }
        return nil
      }
      start = next
      scan = next
      if discarding {
        discarding = false
        continue
      }
      if line.count > maxLineLength { throw .tooLong }
      return line
    }
  }

  /// At end of input: returns the last line if it had no terminator (like `readLine`), or `nil`,
  /// and resets the decoder. Throws `.tooLong` if that last line is over the limit.
  public mutating func finish() throws(FramingError) -> ArraySlice<UInt8>? {
    defer { reset() }
    guard !discarding, start < buffer.count else { return nil }
    let line = buffer.withoutCarriageReturn(start..<buffer.count)
    if line.count > maxLineLength { throw .tooLong }
    return buffer.storage[line]
  }

  /// Forgets all buffered input.
  public mutating func reset() {
    buffer.removeAll()
    start = 0
    scan = 0
    discarding = false
  }
}
