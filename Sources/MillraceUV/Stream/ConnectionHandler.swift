import MillraceWire

/// Serves one `Connection`'s requests, with its own typed per-connection state: set as the
/// connection's `handler`, it gets every complete request in order, on the loop thread.
public protocol ConnectionHandler: AnyObject {
  /// A complete request of `connection`. Replies go through `connection.write(_:)` or a
  /// reserved slot; a handler may pause the connection (`pauseReading()`) to hold back the
  /// requests after this one.
  func connection(_ connection: Connection, received frame: Frame)

  /// How many stages of warming the cache each request decoded ahead gets before it is handed
  /// out (the first, `connection(_:prefetch:into:)`, then `connection(_:prefetchFrom:)`); 0,
  /// the default, decodes none ahead. Read once per batch of requests read.
  var lookahead: Int { get }

  /// The first stage of warming the cache for requests decoded ahead of their turn: for each
  /// of `frames`, sets the state in the same place of `states` the next stage starts from, 0
  /// for none.
  ///
  /// With a `lookahead`, the connection decodes the requests it has read in groups of up to
  /// 16, and gives the whole group each stage in turn, one call a stage, before it hands out
  /// the group's first. A request gets `lookahead` stages at most (fewer once a stage leaves
  /// its state 0). For warming caches only: the requests are still handed out to
  /// `connection(_:received:)` in their turn, and nothing done here may change what they or
  /// any request does. The default warms nothing.
  func connection(
    _ connection: Connection, prefetch frames: UnsafeBufferPointer<Frame>,
    into states: UnsafeMutableBufferPointer<UInt64>)

  /// A later stage of warming the cache for requests decoded ahead: for each state of
  /// `states` that is not 0, from the state the stage before left, leaves the next stage's
  /// (0 for none); a state of 0 must stay 0. Only the states carry what a stage needs, so that
  /// no stage after the first reads the requests. Called only while some state is not 0.
  func connection(_ connection: Connection, prefetchFrom states: UnsafeMutableBufferPointer<UInt64>)

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
  ) {
    states.update(repeating: 0)
  }

  /// Nothing to do.
  public func connectionDidHandOut(_ connection: Connection) {}

  /// Nothing more to warm.
  public func connection(
    _ connection: Connection, prefetchFrom states: UnsafeMutableBufferPointer<UInt64>
  ) {
    states.update(repeating: 0)
  }
}
