import MillraceWire

/// An error reply in Redis's form, `-PREFIX text`: generic errors carry `ERR` and Redis's
/// wording; the daemon's own failures carry their own prefix (DESIGN §4.1), so that clients
/// can tell them apart.
struct ReplyError: Error, Hashable {
  var prefix: String
  var text: String

  init(_ prefix: String, _ text: String) {
    self.prefix = prefix
    self.text = text
  }

  /// `ERR text`.
  static func generic(_ text: String) -> ReplyError { ReplyError("ERR", text) }

  /// A host failure, prefixed with its code (`NOMACHINE no machine x`).
  init(_ failure: HostFailure) {
    self.init(failure.code.rawValue.uppercased(), failure.text)
  }

  /// Redis's reply to an unknown command, quoting up to 128 bytes of its arguments.
  static func unknownCommand(_ frame: Frame) -> ReplyError {
    var arguments = ""
    var index = 1
    while index < frame.count && arguments.utf8.count < 128 {
      let room = 128 - arguments.utf8.count
      arguments += "'\(String(decoding: frame[index].prefix(room), as: UTF8.self))' "
      index += 1
    }
    let word = String(decoding: frame[0].prefix(128), as: UTF8.self)
    return .generic("unknown command '\(word)', with args beginning with: \(arguments)")
  }

  /// Redis's reply to an unknown subcommand.
  static func unknownSubcommand(_ frame: Frame, of container: String) -> ReplyError {
    let word = String(decoding: frame[1].prefix(128), as: UTF8.self)
    return .generic("unknown subcommand '\(word)'. Try \(container.uppercased()) HELP.")
  }

  /// Redis's reply to a wrong number of arguments (`name` as Redis names the command,
  /// `client|setname` for a subcommand).
  static func arity(_ name: String) -> ReplyError {
    .generic("wrong number of arguments for '\(name)' command")
  }

  static let syntax = ReplyError.generic("syntax error")
  static let notInteger = ReplyError.generic("value is not an integer or out of range")
  static let noAuth = ReplyError("NOAUTH", "Authentication required.")
  static let wrongPass = ReplyError(
    "WRONGPASS", "invalid username-password pair or user is disabled.")

  /// Redis's reply to a cluster command on a node not in cluster mode.
  static let clusterDisabled = ReplyError.generic("This instance has cluster support disabled")

  /// The redirection or refusal of a request routed to another node, to several slots or to
  /// a slot no node serves; nil for a request served here.
  init?(refusing route: SlotRoute) {
    switch route {
    case .here: return nil
    case .moved(let slot, let node): self.init("MOVED", "\(slot) \(node.address)")
    case .crossSlot: self.init("CROSSSLOT", "Keys in request don't hash to the same slot")
    case .unassigned: self.init("CLUSTERDOWN", "Hash slot not served")
    case .ask(let slot, let node): self.init("ASK", "\(slot) \(node.address)")
    case .tryAgain: self.init("TRYAGAIN", "Multiple keys request during rehashing of slot")
    }
  }

  /// A word that is not a valid name of a kind, state or input, or (`machine`) of a machine.
  static func invalidName(_ name: String, machine: Bool = false) -> ReplyError {
    let rule = machine ? NameRule.machineSummary : NameRule.summary
    return .generic("invalid name \"\(name.prefix(140))\" (\(rule))")
  }
}
