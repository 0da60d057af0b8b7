import ArgumentParser
import MillraceClient

/// `millctl state NAME [--path] [--context]`: prints the machine's state, its nesting, its
/// context variables.
struct State: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print a machine's state.",
    discussion: "--path prints the nesting (on/playing); --context then prints each context "
      + "variable as name=value on a line of its own.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The machine.
  @Argument(help: "The machine's name.") var name: String

  /// `WITHPATH`.
  @Flag(help: "Print the state's nesting, outermost first (on/playing).") var path = false

  /// `WITHCONTEXT`.
  @Flag(help: "Print the context variables too, one name=value a line.") var context = false

  /// `STATE name [WITHPATH] [WITHCONTEXT]`.
  var request: [String] {
    ["STATE", name] + (path ? ["WITHPATH"] : []) + (context ? ["WITHCONTEXT"] : [])
  }

  /// The state, then `name=value` per variable.
  func render(_ reply: RESPValue) -> String {
    guard context, let words = reply.strings, let state = words.first else {
      return reply.plainText
    }
    let pairs = stride(from: 1, to: words.count - 1, by: 2).map { "\(words[$0])=\(words[$0 + 1])" }
    return ([state] + pairs).joined(separator: "\n")
  }
}
