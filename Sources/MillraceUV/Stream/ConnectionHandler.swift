import MillraceWire

/// Serves one `Connection`'s requests, with its own typed per-connection state: set as the
/// connection's `handler`, it gets every complete request in order, on the loop thread.
public protocol ConnectionHandler: AnyObject {
  /// A complete request of `connection`. Replies go through `connection.write(_:)` or a
  /// reserved slot; a handler may pause the connection (`pauseReading()`) to hold back the
  /// requests after this one.
  func connection(_ connection: Connection, received frame: Frame)
}
