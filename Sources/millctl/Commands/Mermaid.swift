import ArgumentParser
import MillraceDrawing

/// `millctl mermaid KIND`: the kind as a Mermaid state diagram, drawn from the definition the
/// daemon serves (`DESCRIBE kind`), for Markdown that renders Mermaid.
struct Mermaid: DrawingCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print a kind as a Mermaid state diagram (drawn from the daemon's DESCRIBE).",
    discussion: """
      Paste it into a ```mermaid block of a Markdown file, or into mermaid.live. Nested \
      states are composite states; `millraced --mermaid KIND` draws one without a daemon.
      """)

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The kind to draw.
  @Argument(help: "The kind, e.g. auth.") var kind: String

  /// The `stateDiagram-v2`.
  func draw(_ description: KindDescription) -> String { description.mermaid() }
}
