import MillraceUV

/// A command of control protocol v1 (DESIGN §4.1), recognised from a request's first part.
enum ControlCommand: CaseIterable {
  // Most frequent first: `allCases` is the order they are tried in.
  case send, ping, state, spawn, kill, list, kinds, subscribe, unsubscribe, stats, help, auth, quit

  /// The command a request names (ASCII, case-insensitive), found without building a string;
  /// nil for an unknown word.
  init?(_ frame: Frame) {
    for command in Self.allCases where frame.part(0, equalsIgnoringCase: command.word) {
      self = command
      return
    }
    return nil
  }

  /// The command word, upper-case.
  var word: StaticString {
    switch self {
    case .send: "SEND"
    case .ping: "PING"
    case .state: "STATE"
    case .spawn: "SPAWN"
    case .kill: "KILL"
    case .list: "LIST"
    case .kinds: "KINDS"
    case .subscribe: "SUBSCRIBE"
    case .unsubscribe: "UNSUBSCRIBE"
    case .stats: "STATS"
    case .help: "HELP"
    case .auth: "AUTH"
    case .quit: "QUIT"
    }
  }

  /// The command word, lower-case, as error messages name it.
  var name: String { word.description.lowercased() }

  /// Whether the command may run before the client authenticated.
  var isAllowedUnauthenticated: Bool { self == .auth || self == .quit }

  /// Whether the command neither reads nor changes machines, so need not wait for the
  /// connection's earlier `SEND`s (`SEND` itself is queued behind them in its machine's FIFO).
  var isIndependentOfSends: Bool {
    switch self {
    case .send, .ping, .help, .kinds, .quit: true
    default: false
    }
  }
}
