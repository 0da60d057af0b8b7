import ArgumentParser

/// `millctl dot KIND`: the kind's transitions as a Graphviz digraph, as the daemon serves it
/// (`DOT kind`): `millctl dot auth | dot -Tpng > auth.png`.
struct Dot: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print a kind's transitions as Graphviz DOT (asks the daemon).",
    discussion: """
      Draw it with: millctl dot auth | dot -Tpng > auth.png
      Kinds compiled into the daemon (such as counter) have no graph. Without a daemon, \
      `millraced --dot KIND` draws a kind from the machine files.
      """)

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The kind to draw.
  @Argument(help: "The kind, e.g. auth.") var kind: String

  /// `DOT kind`.
  var request: [String] { ["DOT", kind] }
}
