import MillraceUV
import MillraceWire

/// What the daemon remembers about one control connection.
///
/// Read on every request, on the loop thread only: its fields skip dynamic exclusivity checks.
final class ClientSession: ConnectionHandler {
  unowned let commands: ControlCommands
  /// The machines this client subscribed to (`*` for all).
  @exclusivity(unchecked) var subscriptions: Set<String> = []
  /// Whether the client may run commands other than `AUTH` and `QUIT` (DESIGN: with a token,
  /// the first command must be `AUTH`).
  @exclusivity(unchecked) var authenticated: Bool
  /// A `SEND` waiting for room in its machine's queue (the connection is paused meanwhile).
  @exclusivity(unchecked) var blockedSend: (name: String, input: String)?
  /// A command that arrived while earlier `SEND`s of this connection were still queued; it
  /// runs once they are processed (the connection is paused meanwhile).
  @exclusivity(unchecked) var deferred: Frame?
  /// `SEND`s of this connection accepted and not processed yet (their inputs still queued).
  /// A later command that reads or changes machines waits for them (see `ControlCommands`).
  @exclusivity(unchecked) var unprocessedSends = 0

  init(authenticated: Bool, commands: ControlCommands) {
    self.authenticated = authenticated
    self.commands = commands
  }

  func connection(_ connection: Connection, received frame: Frame) {
    commands.execute(frame, on: connection)
  }
}
