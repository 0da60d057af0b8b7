import ArgumentParser
import MillraceClient

/// `millctl send NAME INPUT`: process one input; prints `from -> to`.
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

  /// `SEND name input`.
  var request: [String] { ["SEND", name, input] }

  /// `from -> to` for the `[from, to]` reply.
  func render(_ reply: RESPValue) -> String {
    guard let states = reply.strings, states.count == 2 else { return reply.plainText }
    return "\(states[0]) -> \(states[1])"
  }
}
