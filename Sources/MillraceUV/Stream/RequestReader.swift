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
    // Read through optional chaining, which borrows the handler: a `let` would retain and
    // release it once a read, for a hand-out that mostly does not need it again.
    let depth = connection.lookahead
    if depth > 0 || !ahead.isEmpty || ahead.failure != nil {
      // Taken once for the whole hand-out: its prefetch stages change nothing a request can
      // observe, so they may go on through it should the connection's handler change meanwhile.
      return handOutAhead(
        to: connection, limit: limit, depth: depth, handler: connection.storedHandler)
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
        advance(depth, handler, connection)
      }
      let (frame, state) = ahead.removeFirst()
      connection.deliver(frame, prefetched: state)
    }
    return false
  }

  /// Runs the `depth` prefetch stages of the requests waiting, through `handler`: each stage
  /// one call for the whole group, the later ones while the stage before says some request
  /// has more to warm.
  private func advance(_ depth: Int, _ handler: (any ConnectionHandler)?, _ connection: Connection)
  {
    // Optional chaining borrows the handler; `guard let` would retain and release it.
    guard handler != nil, depth > 0 else { return }
    ahead.withWaiting { frames, states in
      guard handler?.connection(connection, prefetch: frames, into: states) == true else { return }
      for _ in 1..<depth {
        guard handler?.connection(connection, prefetchFrom: states) == true else { return }
      }
    }
  }

  func release() {
    decoder = emptyDecoder()
    ahead.removeAll()
  }
}

/// Requests a reader decoded ahead of their turn (front first), a group of up to `groupSize`
/// at a time, with their handler's prefetch states, and a framing error found after them.
///
/// The requests of a group are appended once the one before was all taken out, so that they
/// and their states lie in order in memory of their own (made on the first append, for
/// `groupSize`): a stage is one call for the group. Taking out the front request moves none of
/// the others. Loop thread only, like its reader.
final class RequestLookahead {
  /// The most requests a reader decodes ahead at once: about what one read of a pipelining
  /// client brings (16 deep), whose misses can all be in flight together.
  static let groupSize = 16

  /// `groupSize` requests, those in `front..<end` initialized, and their states.
  private var frames: UnsafeMutablePointer<Frame>?
  private var states: UnsafeMutablePointer<UInt64>?
  private var front = 0
  private var end = 0
  var failure: FramingError?

  deinit { removeAll() }

  /// How many requests wait.
  var count: Int { end &- front }

  /// Whether no request waits.
  var isEmpty: Bool { front == end }

  /// Adds a request decoded just now at the back, with state 0: to the group waiting, which
  /// holds fewer than `groupSize`, or as the first of a new one.
  func append(_ frame: Frame) {
    if frames == nil {
      frames = .allocate(capacity: Self.groupSize)
      states = .allocate(capacity: Self.groupSize)
    }
    if front == end { (front, end) = (0, 0) }
    precondition(end < Self.groupSize, "a request decoded ahead past its group")
    (frames.unsafelyUnwrapped + end).initialize(to: frame)
    states.unsafelyUnwrapped[end] = 0
    end &+= 1
  }

  /// Takes the front request out and returns its frame and the state its prefetch stages
  /// left. Not empty.
  func removeFirst() -> (Frame, UInt64) {
    let frame = (frames.unsafelyUnwrapped + front).move()
    let state = states.unsafelyUnwrapped[front]
    front &+= 1
    return (frame, state)
  }

  /// Calls `body` with the frames and states of the requests waiting, front first; it may
  /// change the states.
  func withWaiting(
    _ body: (UnsafeBufferPointer<Frame>, UnsafeMutableBufferPointer<UInt64>) -> Void
  ) {
    guard let frames, let states else {
      return body(.init(start: nil, count: 0), .init(start: nil, count: 0))
    }
    body(
      UnsafeBufferPointer(start: frames + front, count: count),
      UnsafeMutableBufferPointer(start: states + front, count: count))
  }

  /// Drops the requests and the failure, and gives the memory back.
  func removeAll() {
    if let frames { (frames + front).deinitialize(count: count) }
    frames?.deallocate()
    states?.deallocate()
    (frames, states, front, end, failure) = (nil, nil, 0, 0, nil)
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
