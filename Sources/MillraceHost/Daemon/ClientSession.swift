import MillraceUV

/// What the daemon remembers about one control connection.
final class ClientSession {
  /// The machines this client subscribed to (`*` for all).
  var subscriptions: Set<String> = []
  /// Whether the client may run commands other than `AUTH`, `PING`, `HELP` and `QUIT`.
  var authenticated: Bool

  init(authenticated: Bool) {
    self.authenticated = authenticated
  }
}
