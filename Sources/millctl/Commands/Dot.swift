import ArgumentParser
import MillraceDrawing

/// `millctl dot KIND`: the kind as a Graphviz digraph, drawn from the definition the daemon
/// serves (`DESCRIBE kind`): `millctl dot auth | dot -Tpng > auth.png`.
struct Dot: DrawingCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print a kind as Graphviz DOT (drawn from the daemon's DESCRIBE).",
    discussion: """
      Draw it with: millctl dot auth | dot -Tpng > auth.png
      Nested states are clusters, final states have a double border, edges show guards and \
      assignments. Without a daemon, `millraced --dot KIND` draws a kind from the machine files.
      """)

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The kind to draw.
  @Argument(help: "The kind, e.g. auth.") var kind: String

  /// The digraph.
  func draw(_ description: KindDescription) -> String { description.dot() }
}
