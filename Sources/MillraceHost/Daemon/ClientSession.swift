import MillraceUV

/// What the daemon remembers about one control connection.
final class ClientSession {
  /// The machines this client subscribed to (`*` for all).
  var subscriptions: Set<String> = []
  /// Whether the client may run commands other than `AUTH` and `QUIT` (DESIGN: with a token,
  /// the first command must be `AUTH`).
  var authenticated: Bool
  /// A `SEND` waiting for room in its machine's queue (the connection is paused meanwhile).
  var blockedSend: (name: String, input: String)?
  /// A command that arrived while earlier `SEND`s of this connection were still queued; it
  /// runs once they are processed (the connection is paused meanwhile).
  var deferred: Frame?
  /// `SEND`s of this connection accepted and not processed yet (their inputs still queued).
  /// A later command that reads or changes machines waits for them (see `ControlCommands`).
  var unprocessedSends = 0

  init(authenticated: Bool) {
    self.authenticated = authenticated
  }
}
