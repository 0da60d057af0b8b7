import MillraceWire

/// Serves one `Connection`'s requests, with its own typed per-connection state: set as the
/// connection's `handler`, it gets every complete request in order, on the loop thread.
public protocol ConnectionHandler: AnyObject {
  /// A complete request of `connection`. Replies go through `connection.write(_:)` or a
  /// reserved slot; a handler may pause the connection (`pauseReading()`) to hold back the
  /// requests after this one.
  func connection(_ connection: Connection, received frame: Frame)

  /// `connection(_:received:)` for a request decoded ahead, with the state its prefetch
  /// stages left (0 for a request that had none): a hint the handler may use to save work it
  /// would otherwise redo, which must not change what the request does, since the state may
  /// be 0 or stale for any request. The default ignores it.
  func connection(_ connection: Connection, received frame: Frame, prefetched: UInt64)

  /// How many stages of warming the cache each request decoded ahead gets before it is handed
  /// out (the first, `connection(_:prefetch:into:)`, then `connection(_:prefetchFrom:)`); 0,
  /// the default, decodes none ahead. Read once per batch of requests read.
  var lookahead: Int { get }

  /// The first stage of warming the cache for requests decoded ahead of their turn: for each
  /// of `frames`, sets the state in the same place of `states` (which the handler alone
  /// reads); returns whether some request needs a later stage.
  ///
  /// With a `lookahead`, the connection decodes the requests it has read in groups of up to
  /// 16, and gives the whole group each stage in turn, one call a stage, before it hands out
  /// the group's first. The group gets `lookahead` stages at most, fewer once a stage returns
  /// false. For warming caches: the requests are still handed out in their turn, each with
  /// the state its stages left (`connection(_:received:prefetched:)`), and nothing done here
  /// may change what they or any request does. The default warms nothing (states 0).
  func connection(
    _ connection: Connection, prefetch frames: UnsafeBufferPointer<Frame>,
    into states: UnsafeMutableBufferPointer<UInt64>
  ) -> Bool

  /// A later stage of warming the cache for requests decoded ahead: each state goes on from
  /// the one the stage before left; returns whether some request needs a later stage. Only
  /// the states carry what a stage needs, so that no stage after the first reads the
  /// requests. Called only after a stage returned true.
  func connection(
    _ connection: Connection, prefetchFrom states: UnsafeMutableBufferPointer<UInt64>
  ) -> Bool

  /// The requests of one read (or of one slice of it) were handed out; what is written now
  /// goes out with their replies, in the same flush. The default does nothing.
  func connectionDidHandOut(_ connection: Connection)
}

extension ConnectionHandler {
  /// None: requests are decoded one at a time, as they are handed out.
  public var lookahead: Int { 0 }

  /// Nothing to warm.
  public func connection(
    _ connection: Connection, prefetch frames: UnsafeBufferPointer<Frame>,
    into states: UnsafeMutableBufferPointer<UInt64>
  ) -> Bool {
    states.update(repeating: 0)
    return false
  }

  /// The request, its prefetch state ignored.
  public func connection(_ connection: Connection, received frame: Frame, prefetched: UInt64) {
    self.connection(connection, received: frame)
  }

  /// Nothing to do.
  public func connectionDidHandOut(_ connection: Connection) {}

  /// Nothing more to warm.
  public func connection(
    _ connection: Connection, prefetchFrom states: UnsafeMutableBufferPointer<UInt64>
  ) -> Bool {
    false
  }
}
