/// An incremental decoder that splits a byte stream into `Frame`s: what a connection holds to
/// turn the bytes it reads into requests, whatever the framing. `RESPDecoder` (RESP2 requests
/// and inline commands) and `LineDecoder` (newline-terminated lines) are the two framings.
///
/// Guarantees of every decoder:
/// - The frames and the errors are the same for any split of the input, one byte at a time
///   included, and come in input order.
/// - `next()` returns `nil` when the bytes appended hold no complete frame; a frame over the
///   decoder's length limit throws `.tooLong` as soon as that is certain, malformed input
///   throws `.protocol`. Each decoder says whether decoding can go on after an error.
/// - A frame shares the decoder's buffer instead of copying it (see `Frame`); the buffer's
///   memory is reused, so steady-state decoding does not allocate.
/// - Use from one thread at a time (a decoder is a value; copies are independent).
public protocol FrameDecoder: Sendable {
  /// Bytes appended and not yet consumed by a returned frame (or skipped).
  var bufferedByteCount: Int { get }

  /// Appends input bytes, copied into the decoder's buffer.
  mutating func append(_ bytes: UnsafeRawBufferPointer)

  /// Returns the next complete frame, or `nil` when more input is needed.
  mutating func next() throws(FramingError) -> Frame?

  /// Forgets all buffered input and any error; keeps the buffer's memory.
  mutating func reset()
}

extension FrameDecoder {
  /// Appends input bytes, copied into the decoder's buffer.
  public mutating func append(_ bytes: some Collection<UInt8>) {
    let appended: Void? = bytes.withContiguousStorageIfAvailable {
      append(UnsafeRawBufferPointer($0))
    }
    if appended == nil { Array(bytes).withUnsafeBytes { append($0) } }
  }
}
