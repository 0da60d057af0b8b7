import MillraceWire

/// Serves one `Connection`'s requests, with its own typed per-connection state: set as the
/// connection's `handler`, it gets every complete request in order, on the loop thread.
public protocol ConnectionHandler: AnyObject {
  /// A complete request of `connection`. Replies go through `connection.write(_:)` or a
  /// reserved slot; a handler may pause the connection (`pauseReading()`) to hold back the
  /// requests after this one.
  func connection(_ connection: Connection, received frame: Frame)

  /// How many stages of warming the cache each request decoded ahead gets before it is handed
  /// out (the first, `connection(_:prefetch:)`, then `connection(_:prefetchFrom:)`); 0, the
  /// default, decodes none ahead. Read once per batch of requests read.
  var lookahead: Int { get }

  /// The first stage of warming the cache for a request decoded ahead of its turn; returns the
  /// state the next stage starts from, 0 for none.
  ///
  /// With a `lookahead`, the connection decodes the requests it has read in groups of up to
  /// 16, and gives every request of a group its stages, one stage at a time for the whole
  /// group, before it hands out the group's first. A request gets `lookahead` stages at most
  /// (fewer once a stage leaves 0). For warming caches only: the request is still handed out
  /// to `connection(_:received:)` in its turn, and nothing done here may change what it or any
  /// request does. The default warms nothing.
  func connection(_ connection: Connection, prefetch frame: Frame) -> UInt64

  /// A later stage of warming the cache for a request decoded ahead, from the `state` the
  /// stage before left (never 0); leaves the next stage's, 0 for none. Only the state carries
  /// what a stage needs, so that no stage after the first copies the request.
  func connection(_ connection: Connection, prefetchFrom state: inout UInt64)

  /// The requests of one read (or of one slice of it) were handed out; what is written now
  /// goes out with their replies, in the same flush. The default does nothing.
  func connectionDidHandOut(_ connection: Connection)
}

extension ConnectionHandler {
  /// None: requests are decoded one at a time, as they are handed out.
  public var lookahead: Int { 0 }

  /// Nothing to warm.
  public func connection(_ connection: Connection, prefetch frame: Frame) -> UInt64 { 0 }

  /// Nothing to do.
  public func connectionDidHandOut(_ connection: Connection) {}

  /// Nothing more to warm.
  public func connection(_ connection: Connection, prefetchFrom state: inout UInt64) {
    state = 0
  }
}
