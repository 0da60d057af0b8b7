import MillraceWire

/// Serves one `Connection`'s requests, with its own typed per-connection state: set as the
/// connection's `handler`, it gets every complete request in order, on the loop thread.
public protocol ConnectionHandler: AnyObject {
  /// A complete request of `connection`. Replies go through `connection.write(_:)` or a
  /// reserved slot; a handler may pause the connection (`pauseReading()`) to hold back the
  /// requests after this one.
  func connection(_ connection: Connection, received frame: Frame)

  /// How many requests the connection decodes ahead of the one it hands out, so that the
  /// handler can warm the cache for them (`connection(_:prefetch:stage:state:)`); 0, the
  /// default, decodes none ahead. Read once per batch of requests read.
  var lookahead: Int { get }

  /// A request decoded ahead of its turn: called `lookahead` times for it before it is handed
  /// out (fewer if `lookahead` drops meanwhile), with `stage` 0, 1, ... and `state` kept between the calls for this request (0 at the
  /// first). Once a request before it is handed out, each request waiting gets one stage; the
  /// requests of a read found waiting with none (its first ones) get every stage first, one
  /// stage at a time for all of them, before the first is handed out. For warming caches only:
  /// the request is still handed out to `connection(_:received:)` in its turn, and nothing done
  /// here may change what it or any request does. The default does nothing.
  func connection(_ connection: Connection, prefetch frame: Frame, stage: Int, state: inout UInt64)
}

extension ConnectionHandler {
  /// None: requests are decoded one at a time, as they are handed out.
  public var lookahead: Int { 0 }

  /// Nothing to warm.
  public func connection(
    _ connection: Connection, prefetch frame: Frame, stage: Int, state: inout UInt64
  ) {}
}
