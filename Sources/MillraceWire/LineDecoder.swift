#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Incremental newline framing: splits a byte stream into lines ending in `\n` or `\r\n`.
///
/// Guarantees:
/// - Works for any split of the input (one byte at a time included); each byte is scanned once.
/// - Lines are returned without their terminator, as slices of the decoder's buffer (no copy;
///   the slice's indices are the buffer's, so use `startIndex`, not 0). The buffer's capacity is
///   reused, so steady-state decoding does not allocate.
/// - A line longer than `maxLineLength` bytes (terminator excluded) throws `.tooLong` once, as
///   soon as that is certain; the decoder then skips to the end of that line and carries on, so
///   the error is recoverable. Memory stays below `maxLineLength` plus one appended chunk.
/// - Never throws `.protocol`: every byte sequence is a sequence of lines.
public struct LineDecoder: Sendable {
  /// The default maximum line length, 64 KiB.
  public static let defaultMaxLineLength = 64 * 1024

  /// The longest accepted line, in bytes, terminator excluded.
  public let maxLineLength: Int

  private var buffer: [UInt8] = []
  private var start = 0
  private var scan = 0
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
    makeRoom(for: bytes.count)
    buffer.append(contentsOf: bytes)
  }

  /// Appends input bytes (copied into the decoder's buffer).
  public mutating func append(_ bytes: some Collection<UInt8>) {
    makeRoom(for: bytes.count)
    buffer.append(contentsOf: bytes)
  }

  /// Returns the next complete line, or `nil` when more input is needed. Throws `.tooLong` for
  /// an over-long line; calling `next()` again continues after it.
  public mutating func next() throws(FramingError) -> ArraySlice<UInt8>? {
    guard let line = try nextRange() else { return nil }
    return buffer[line]
  }

  /// `next()` as a one-part `Frame` sharing the buffer (what `StreamServer` hands out).
  package mutating func nextFrame() throws(FramingError) -> Frame? {
    guard let line = try nextRange() else { return nil }
    return Frame(storage: buffer, line: line)
  }

  private mutating func nextRange() throws(FramingError) -> Range<Int>? {
    while true {
      guard let newline = findNewline() else {
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
      let lineStart = start
      start = newline + 1
      scan = start
      if discarding {
        discarding = false
        continue
      }
      var end = newline
      if end > lineStart && buffer[end - 1] == 13 { end -= 1 }
      if end - lineStart > maxLineLength { throw .tooLong }
      return lineStart..<end
    }
  }

  /// At end of input: returns the last line if it had no terminator (like `readLine`), or `nil`,
  /// and resets the decoder. Throws `.tooLong` if that last line is over the limit.
  public mutating func finish() throws(FramingError) -> ArraySlice<UInt8>? {
    defer { reset() }
    guard !discarding, start < buffer.count else { return nil }
    var end = buffer.count
    if buffer[end - 1] == 13 { end -= 1 }
    if end - start > maxLineLength { throw .tooLong }
    return buffer[start..<end]
  }

  /// Forgets all buffered input.
  public mutating func reset() {
    buffer.removeAll(keepingCapacity: true)
    start = 0
    scan = 0
    discarding = false
  }

  private func findNewline() -> Int? {
    guard scan < buffer.count else { return nil }
    return buffer.withUnsafeBytes { bytes -> Int? in
      let base = bytes.baseAddress!
      guard let hit = memchr(base + scan, 0x0A, bytes.count - scan) else { return nil }
      return base.distance(to: UnsafeRawPointer(hit))
    }
  }

  private mutating func makeRoom(for incoming: Int) {
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
      scan = 0
    } else if start > 0 && buffer.capacity - buffer.count < incoming {
      buffer.removeSubrange(0..<start)
      scan -= start
      start = 0
    }
  }
}
