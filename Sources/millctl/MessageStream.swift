import MillraceClient

/// A subscription on a connection: `PSUBSCRIBE` and then the pub/sub messages, printed one per
/// line as `HH:MM:SS.mmm name: text`. Shared by `watch` and `SUBSCRIBE` in the `repl`.
struct MessageStream {
  /// The connection, used only for this subscription from now on.
  let client: ControlClient

  /// Sends `PSUBSCRIBE names...` (a machine name matches itself; `*`, `?` and `[...]` match
  /// many) and reads its confirmations (one per name); throws `MillctlFailure` for a word that
  /// is neither a machine name nor a pattern.
  func subscribe(_ names: [String]) throws {
    for name in names
    where !ControlClient.isValidMachineName(name) && !name.contains(where: "*?[".contains) {
      throw MillctlFailure(
        "invalid name \"\(name.prefix(140))\" (\(ControlClient.machineNameRule), or a glob pattern)"
      )
    }
    try client.send(["PSUBSCRIBE"] + names)
    try confirm(names.count)
  }

  /// Reads `count` subscription confirmations, the replies of a `SUBSCRIBE` already sent.
  func confirm(_ count: Int) throws {
    for _ in 0..<count { try client.read().checked() }
  }

  /// Prints messages as they arrive, `limit` of them or until the connection ends (which
  /// throws `ControlClient.Failure`).
  func printMessages(limit: Int? = nil) throws {
    var printed = 0
    while limit.map({ printed < $0 }) ?? true {
      Console.line(Self.line(for: try client.read()))
      printed += 1
    }
  }

  /// `HH:MM:SS.mmm name: text` for a `["message", name, text]` or `["pmessage", pattern, name,
  /// text]` reply; any other reply as redis-cli shows it.
  static func line(for reply: RESPValue) -> String {
    guard let words = reply.strings, let kind = words.first,
      (kind == "message" && words.count == 3) || (kind == "pmessage" && words.count == 4)
    else {
      return reply.description
    }
    return "\(Timestamp.now()) \(words[words.count - 2]): \(words[words.count - 1])"
  }
}
