import MillraceWire

/// A connection's decoder, of the type its server's framing chose when it accepted the
/// connection: the connection appends what it reads and asks for requests without knowing the
/// framing.
///
/// Guarantees: one dynamic call per read (`append`, then `handOut`); the requests of the read
/// are decoded and handed out by code specialized for the decoder's type, with no dynamic call
/// per request.
protocol RequestReader: AnyObject {
  /// Whether bytes read or requests decoded wait to be handed out.
  var hasBufferedRequests: Bool { get }
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
  /// The requests decoded ahead of their turn.
  var ahead: RequestLookahead { get }
}

extension DecodingRequestReader {
  var hasBufferedRequests: Bool {
    decoder.bufferedByteCount > 0 || !ahead.isEmpty || ahead.failure != nil
  }

  func append(_ bytes: UnsafeRawBufferPointer) {
    decoder.append(bytes)
  }

  func handOut(to connection: Connection, limit: Int) -> Bool {
    // Taken once for the whole hand-out: its prefetch stages change nothing a request can
    // observe, so they may go on through it should the connection's handler change meanwhile.
    let handler = connection.storedHandler
    let depth = handler?.lookahead ?? 0
    if depth > 0 || !ahead.isEmpty || ahead.failure != nil {
      return handOutAhead(to: connection, limit: limit, depth: depth, handler: handler)
    }
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

  /// `handOut` with requests decoded ahead in groups: once the requests decoded before are
  /// all handed out, up to `RequestLookahead.groupSize` more are decoded (those buffered), and
  /// each gets its `depth` prefetch stages, one stage at a time for the whole group, before
  /// the first of them is handed out, so that each stage's misses overlap and have the rest
  /// of the group's stages to arrive. A framing error found ahead is reported once the
  /// requests before it are handed out.
  private func handOutAhead(
    to connection: Connection, limit: Int, depth: Int, handler: (any ConnectionHandler)?
  ) -> Bool {
    var left = limit
    while connection.canHandOut {
      guard left > 0 else { return true }
      left &-= 1
      if ahead.isEmpty {
        while ahead.failure == nil, ahead.count < RequestLookahead.groupSize {
          do {
            guard let frame = try decoder.next() else { break }
            ahead.append(frame)
          } catch {
            ahead.failure = error
          }
        }
        guard !ahead.isEmpty else {
          if let failure = ahead.failure {
            ahead.failure = nil
            connection.framingFailed(failure)
          }
          return false
        }
        for stage in 0..<depth { advance(stage, handler, connection) }
      }
      connection.deliver(ahead.removeFirst())
    }
    return false
  }

  /// Prefetch stage `stage` (0: the first), through `handler`, for each request waiting that
  /// has more to warm.
  private func advance(
    _ stage: Int, _ handler: (any ConnectionHandler)?, _ connection: Connection
  ) {
    // Optional chaining borrows the handler; `guard let` would retain and release it.
    guard handler != nil else { return }
    ahead.forEach { request in
      if stage == 0 {
        request.state = handler?.connection(connection, prefetch: request.frame) ?? 0
      } else if request.state != 0 {
        handler?.connection(connection, prefetchFrom: &request.state)
      }
    }
  }

  func release() {
    decoder = emptyDecoder()
    ahead.removeAll()
  }
}

/// Requests a reader decoded ahead of their turn (front first), and a framing error found
/// after them.
///
/// A ring in memory of its own: handing out the front request moves none of the others, and a
/// request is changed in place (a copy out and back would retain and release its frame), with
/// no uniqueness or bounds check per access. Loop thread only, like its reader.
final class RequestLookahead {
  /// A request decoded ahead, with its handler's prefetch state.
  struct Waiting {
    let frame: Frame
    var state: UInt64 = 0
  }

  /// The most requests a reader decodes ahead at once: about what one read of a pipelining
  /// client brings (16 deep), whose misses can all be in flight together.
  static let groupSize = 16

  /// The ring: `capacity` slots (a power of two, or none), the requests initialized in the
  /// `count` from `head`.
  private var slots: UnsafeMutablePointer<Waiting>?
  private var capacity = 0
  private var head = 0
  /// How many requests wait.
  private(set) var count = 0
  var failure: FramingError?

  deinit { removeAll() }

  /// Whether no request waits.
  var isEmpty: Bool { count == 0 }

  /// Adds a request decoded just now at the back.
  func append(_ frame: Frame) {
    if count == capacity { grow() }
    (slots.unsafelyUnwrapped + ((head &+ count) & (capacity &- 1)))
      .initialize(to: Waiting(frame: frame))
    count &+= 1
  }

  /// Takes the front request out and returns its frame. Not empty.
  func removeFirst() -> Frame {
    let front = (slots.unsafelyUnwrapped + head).move()
    head = (head &+ 1) & (capacity &- 1)
    count &-= 1
    return front.frame
  }

  /// Calls `body` with each request, front first, in place. `body` must not add or take
  /// requests.
  func forEach(_ body: (inout Waiting) -> Void) {
    guard let slots else { return }
    let (head, mask) = (head, capacity &- 1)
    for position in 0..<count { body(&slots[(head &+ position) & mask]) }
  }

  /// Drops the requests and the failure, and gives the ring's memory back.
  func removeAll() {
    while count > 0 { _ = removeFirst() }
    slots?.deallocate()
    (slots, capacity, head, failure) = (nil, 0, 0, nil)
  }

  /// Twice the slots (four at first), the requests moved to the front.
  private func grow() {
    let grown = UnsafeMutablePointer<Waiting>.allocate(capacity: max(4, 2 * capacity))
    if let slots {
      for position in 0..<count {
        (grown + position).initialize(to: (slots + ((head &+ position) & (capacity &- 1))).move())
      }
      slots.deallocate()
    }
    (slots, capacity, head) = (grown, max(4, 2 * capacity), 0)
  }
}

/// The reader of RESP requests (arrays and inline commands).
final class RESPRequestReader: DecodingRequestReader {
  // Used on every read and request, on the loop thread only: no dynamic exclusivity checks.
  @exclusivity(unchecked) var decoder: RESPDecoder
  let ahead = RequestLookahead()

  init(maxFrameLength: Int) {
    decoder = RESPDecoder(maxFrameLength: maxFrameLength)
  }

  func emptyDecoder() -> RESPDecoder { RESPDecoder(maxFrameLength: decoder.maxFrameLength) }
}

/// The reader of newline-terminated lines.
final class LineRequestReader: DecodingRequestReader {
  // Used on every read and request, on the loop thread only: no dynamic exclusivity checks.
  @exclusivity(unchecked) var decoder: LineDecoder
  let ahead = RequestLookahead()

  init(maxLineLength: Int) {
    decoder = LineDecoder(maxLineLength: maxLineLength)
  }

  func emptyDecoder() -> LineDecoder { LineDecoder(maxLineLength: decoder.maxLineLength) }
}
