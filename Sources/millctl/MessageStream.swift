import MillraceHost

/// A subscription on a connection: `SUBSCRIBE` and then the pub/sub messages, printed one per
/// line as `HH:MM:SS.mmm name: text`. Shared by `watch` and `SUBSCRIBE` in the `repl`.
struct MessageStream {
  /// The connection, used only for this subscription from now on.
  let client: ControlClient

  /// Sends `SUBSCRIBE names...` and reads its confirmations (one per name); throws
  /// `MillctlFailure` when the daemon refuses a name.
  func subscribe(_ names: [String]) throws {
    try client.send(["SUBSCRIBE"] + names)
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

  /// `HH:MM:SS.mmm name: text` for a `["message", name, text]` reply; any other reply as
  /// redis-cli shows it.
  static func line(for reply: RESPValue) -> String {
    guard let words = reply.strings, words.count == 3, words[0] == "message" else {
      return reply.description
    }
    return "\(Timestamp.now()) \(words[1]): \(words[2])"
  }
}
