import ArgumentParser
import MillraceClient

/// `millctl send NAME INPUT [ARG...]`: process one input (with its arguments, one per
/// parameter of a kind with data); prints `from -> to`.
struct Send: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Send an input to a machine and print 'from -> to' once it is processed.",
    discussion: "Exits 1 with the daemon's error (rejected, noinput, nomachine, busy...).")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The machine.
  @Argument(help: "The machine's name.") var name: String

  /// The input.
  @Argument(help: "The input, e.g. open.") var input: String

  /// The input's arguments.
  @Argument(help: "The input's arguments, one per parameter, e.g. ann 1234.")
  var arguments: [String] = []

  /// `SEND name input arg...`.
  var request: [String] { ["SEND", name, input] + arguments }

  /// `from -> to` for the `[from, to]` reply.
  func render(_ reply: RESPValue) -> String {
    guard let states = reply.strings, states.count == 2 else { return reply.plainText }
    return "\(states[0]) -> \(states[1])"
  }
}
