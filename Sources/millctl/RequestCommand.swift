import ArgumentParser
import MillraceClient

/// A subcommand that sends one request to the daemon and prints the reply: the shared body
/// of `send`, `state`, `list`, `kinds`, `spawn`, `kill`, `stats` and `ping`.
///
/// A reply that is an error becomes `millctl: <code> <text>` on standard error and exit
/// status 1; anything else is printed with `render(_:)` (nothing when that is empty).
protocol RequestCommand: ParsableCommand {
  /// The connection options (`@OptionGroup`).
  var connection: ConnectionOptions { get }
  /// The request's words, e.g. `["SEND", name, input]`.
  var request: [String] { get }
  /// The text printed for a successful reply; defaults to `RESPValue.plainText`.
  func render(_ reply: RESPValue) -> String
}

extension RequestCommand {
  /// The reply's `plainText`.
  func render(_ reply: RESPValue) -> String { reply.plainText }

  /// Connects, sends `request`, prints the rendered reply or fails.
  func run() throws {
    let reply = try connection.open().call(request).checked()
    let text = render(reply)
    if !text.isEmpty { Console.line(text) }
  }
}
