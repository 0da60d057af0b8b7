import MillraceUV
import MillraceWire

/// A command of control protocol v1 (DESIGN §4.1), recognised from a request's first part.
enum ControlCommand: CaseIterable {
  case send, ping, state, spawn, kill, list, kinds, subscribe, unsubscribe, stats, help, auth, quit

  /// The command a request names (ASCII, case-insensitive), found without building a string:
  /// its length and first letter leave one or two candidates, compared in full; nil for an
  /// unknown word.
  init?(_ frame: borrowing Frame) {
    let (length, first, second) = frame.withUnsafeBytes(of: 0) { word in
      word.count < 2 ? (word.count, 0, 0) : (word.count, word[0] | 0x20, word[1] | 0x20)
    }
    let candidate: ControlCommand? =
      switch (length, first) {
      case (4, UInt8(ascii: "s")): .send
      case (4, UInt8(ascii: "p")): .ping
      case (4, UInt8(ascii: "k")): .kill
      case (4, UInt8(ascii: "l")): .list
      case (4, UInt8(ascii: "h")): .help
      case (4, UInt8(ascii: "a")): .auth
      case (4, UInt8(ascii: "q")): .quit
      case (5, UInt8(ascii: "k")): .kinds
      case (5, UInt8(ascii: "s")):
        second == UInt8(ascii: "p")
          ? .spawn : frame.part(0, equalsIgnoringCase: "STATE") ? .state : .stats
      case (9, _): .subscribe
      case (11, _): .unsubscribe
      default: nil
      }
    guard let candidate, frame.part(0, equalsIgnoringCase: candidate.word) else { return nil }
    self = candidate
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
