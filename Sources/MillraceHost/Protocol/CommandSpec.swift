import MillraceWire

/// One command of the control protocol (DESIGN §4.1): what dispatch checks (arity, flags),
/// what `COMMAND`, `COMMAND DOCS` and `HELP` say of it, and the handler that runs it.
struct CommandSpec: Sendable {
  /// Runs a request whose arity and context were checked.
  typealias Handler = @Sendable (ControlServer, Session, Frame) -> Void

  /// The name, lower-case; a subcommand's is `container|sub` (as Redis names them).
  var name: String
  /// Redis's arity: `n` exactly `n` words (the command's own included), `-n` at least `n`.
  var arity: Int
  var flags: CommandFlags
  /// Where the machine names are in a request, when the command has any.
  var keys: KeyPositions?
  /// Redis's command group (`generic`, `connection`, `pubsub`, `transactions`, `server`).
  var group: String
  /// One line for `COMMAND DOCS` and `HELP`.
  var summary: String
  /// The arguments after the command word(s), for `COMMAND DOCS` and `HELP`.
  var arguments: [CommandArgument]
  /// A container's subcommands (`CLIENT ID`, `COMMAND DOCS`, ...); a container's own handler
  /// runs only for a request of the container's word alone, when its arity allows it
  /// (`COMMAND`).
  var subcommands: [CommandSpec]
  var run: Handler

  init(
    _ name: String, arity: Int, _ flags: CommandFlags, keys: KeyPositions? = nil,
    group: String, _ summary: String, arguments: [CommandArgument] = [],
    subcommands: [CommandSpec] = [], run: @escaping Handler = { _, _, _ in }
  ) {
    self.name = name
    self.arity = arity
    self.flags = flags
    self.keys = keys
    self.group = group
    self.summary = summary
    self.arguments = arguments
    self.subcommands = subcommands
    self.run = run
  }

  /// Whether a request of `count` words (the command word included) fits the arity.
  func accepts(wordCount count: Int) -> Bool {
    Self.arity(arity, accepts: count)
  }

  /// Whether a request of `count` words fits `arity`.
  static func arity(_ arity: Int, accepts count: Int) -> Bool {
    arity >= 0 ? count == arity : count >= -arity
  }

  /// The upper-case words a request starts with (`CLIENT SETNAME` for `client|setname`).
  var displayName: String {
    name.split(separator: "|").map { $0.uppercased() }.joined(separator: " ")
  }

  /// `SEND name input`, the form `HELP` prints.
  var synopsis: String {
    ([displayName] + arguments.map(\.synopsis)).joined(separator: " ")
  }
}

/// What a command is, as `COMMAND INFO` lists its flags, plus the daemon's own dispatch rules.
struct CommandFlags: OptionSet, Sendable {
  let rawValue: UInt32

  /// Changes machines.
  static let write = CommandFlags(rawValue: 1 << 0)
  /// Reads machines, changes nothing.
  static let readonly = CommandFlags(rawValue: 1 << 1)
  /// Constant time, never waits.
  static let fast = CommandFlags(rawValue: 1 << 2)
  /// Pub/sub.
  static let pubsub = CommandFlags(rawValue: 1 << 3)
  /// Allowed before `AUTH`.
  static let noAuth = CommandFlags(rawValue: 1 << 4)
  /// Refused inside `MULTI` (`MULTI`, `WATCH`).
  static let noMulti = CommandFlags(rawValue: 1 << 5)
  /// Administrative (`CLIENT KILL`, `CONFIG`).
  static let admin = CommandFlags(rawValue: 1 << 6)
  /// Served while loading and when stale (connection commands).
  static let loading = CommandFlags(rawValue: 1 << 7)
  /// Allowed in RESP2 subscribed mode (Redis's list: (P)SUBSCRIBE, (P)UNSUBSCRIBE, PING,
  /// QUIT, RESET). The daemon's own rule, not listed by `COMMAND`.
  static let subscribedContext = CommandFlags(rawValue: 1 << 8)
  /// Neither reads nor changes machines, so need not wait for the connection's earlier
  /// `SEND`s to be processed (`SEND` itself queues behind them in its machine's FIFO). The
  /// daemon's own rule.
  static let independentOfSends = CommandFlags(rawValue: 1 << 9)
  /// Runs as soon as it arrives even inside `MULTI` (`EXEC`, `DISCARD`, `QUIT`, `RESET`).
  static let transactionControl = CommandFlags(rawValue: 1 << 10)
  /// On a cluster node, served in a slot this node imports as if `ASKING` came just before
  /// (`RESTORE-ASKING`, which `MIGRATE` sends).
  static let asking = CommandFlags(rawValue: 1 << 11)

  /// The flags as `COMMAND INFO` names them.
  var redisNames: [String] {
    let names: [(CommandFlags, String)] = [
      (.write, "write"), (.readonly, "readonly"), (.admin, "admin"), (.pubsub, "pubsub"),
      (.noAuth, "no_auth"), (.noMulti, "no_multi"), (.loading, "loading"), (.loading, "stale"),
      (.fast, "fast"), (.asking, "asking"),
    ]
    return names.filter { contains($0.0) }.map(\.1)
  }
}

/// Where the keys (machine names) of a request are: Redis's first key, last key and step
/// (positions count the command word as 0; a negative last counts from the end).
struct KeyPositions: Hashable, Sendable {
  var first: Int
  var last: Int
  var step: Int

  /// One key, at `position`.
  static func single(_ position: Int) -> KeyPositions {
    KeyPositions(first: position, last: position, step: 1)
  }

  /// The key positions of a request of `count` words.
  func positions(wordCount count: Int) -> StrideThrough<Int> {
    let end = last < 0 ? count + last : min(last, count - 1)
    return stride(from: first, through: end, by: step)
  }
}

/// One argument of a command, as `COMMAND DOCS` describes it.
struct CommandArgument: Sendable {
  /// `COMMAND DOCS` types.
  enum Kind: String, Sendable {
    case key, string, integer, pattern, pureToken = "pure-token", oneof, block
  }

  var name: String
  var kind: Kind
  /// The literal word of a token argument (`MATCH`), or nil.
  var token: String?
  var optional = false
  var multiple = false
  /// The members of a `oneof` or `block`.
  var members: [CommandArgument] = []

  static func key(_ name: String) -> CommandArgument { CommandArgument(name: name, kind: .key) }
  static func string(_ name: String) -> CommandArgument {
    CommandArgument(name: name, kind: .string)
  }

  /// `name`, `[name]`, `name [name ...]`, `[MATCH pattern]`: the form `HELP` prints.
  var synopsis: String {
    var text: String
    switch kind {
    case .pureToken: text = token ?? name
    case .oneof: text = members.map(\.synopsis).joined(separator: "|")
    case .block: text = members.map(\.synopsis).joined(separator: " ")
    default: text = token.map { "\($0) \(name)" } ?? name
    }
    if multiple { text += " [\(text) ...]" }
    return optional ? "[\(text)]" : text
  }

  /// A copy that may be left out.
  var optionally: CommandArgument {
    var copy = self
    copy.optional = true
    return copy
  }

  /// A copy that may repeat.
  var repeated: CommandArgument {
    var copy = self
    copy.multiple = true
    return copy
  }
}
