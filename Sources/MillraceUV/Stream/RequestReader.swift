import MillraceWire

/// A connection's decoder, of the type its server's framing chose when it accepted the
/// connection: the connection appends what it reads and asks for requests without knowing the
/// framing.
///
/// Guarantees: one dynamic call per read (`append`, then `handOut`); the requests of the read
/// are decoded and handed out by code specialized for the decoder's type, with no dynamic call
/// per request.
protocol RequestReader: AnyObject {
  /// Bytes read and not yet handed out as requests.
  var bufferedByteCount: Int { get }
  /// Appends bytes read from the socket.
  func append(_ bytes: UnsafeRawBufferPointer)
  /// Hands `connection` the decoded requests while it accepts them (`Connection.canHandOut`),
  /// at most `limit`; a framing error goes to `Connection.framingFailed` and ends the hand-out.
  /// Returns whether it stopped at `limit` with more requests possibly buffered.
  func handOut(to connection: Connection, limit: Int) -> Bool
  /// Drops the buffered bytes and their memory (the connection closed).
  func release()
}

/// A `RequestReader` that holds a decoder of one concrete type. Its requirements are
/// implemented once, below; each conforming final class gets them specialized for its decoder
/// (a generic class would not: its conformance, generic too, would decode through the
/// protocol's witness table).
protocol DecodingRequestReader: RequestReader {
  associatedtype Decoder: FrameDecoder
  /// The decoder; no access to it spans a call out of the reader.
  var decoder: Decoder { get set }
  /// A new decoder with the same limits, holding no memory.
  func emptyDecoder() -> Decoder
}

extension DecodingRequestReader {
  var bufferedByteCount: Int { decoder.bufferedByteCount }

  func append(_ bytes: UnsafeRawBufferPointer) {
    decoder.append(bytes)
  }

  func handOut(to connection: Connection, limit: Int) -> Bool {
    var left = limit
    while connection.canHandOut {
      guard left > 0 else { return true }
      left &-= 1
      let frame: Frame?
      do {
        frame = try decoder.next()
      } catch {
        connection.framingFailed(error)
        return false
      }
      guard let frame else { return false }
      connection.deliver(frame)
    }
    return false
  }

  func release() {
    decoder = emptyDecoder()
  }
}

/// The reader of RESP requests (arrays and inline commands).
final class RESPRequestReader: DecodingRequestReader {
  // Used on every read and request, on the loop thread only: no dynamic exclusivity checks.
  @exclusivity(unchecked) var decoder: RESPDecoder

  init(maxFrameLength: Int) {
    decoder = RESPDecoder(maxFrameLength: maxFrameLength)
  }

  func emptyDecoder() -> RESPDecoder { RESPDecoder(maxFrameLength: decoder.maxFrameLength) }
}

/// The reader of newline-terminated lines.
final class LineRequestReader: DecodingRequestReader {
  // Used on every read and request, on the loop thread only: no dynamic exclusivity checks.
  @exclusivity(unchecked) var decoder: LineDecoder

  init(maxLineLength: Int) {
    decoder = LineDecoder(maxLineLength: maxLineLength)
  }

  func emptyDecoder() -> LineDecoder { LineDecoder(maxLineLength: decoder.maxLineLength) }
}
