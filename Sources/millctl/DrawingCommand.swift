import ArgumentParser
import MillraceClient
import MillraceDrawing

/// A subcommand that draws a kind: it asks the daemon for the kind's definition
/// (`DESCRIBE kind`) and draws it here, so that every kind the daemon serves can be drawn,
/// kinds compiled into it (such as `counter`) too. The shared body of `dot` and `mermaid`.
///
/// An error reply becomes `millctl: <code> <text>` and exit status 1, as for any request; so
/// does a definition that cannot be read (`millctl: cannot draw kind k: ...`).
protocol DrawingCommand: ParsableCommand {
  /// The connection options (`@OptionGroup`).
  var connection: ConnectionOptions { get }
  /// The kind to draw.
  var kind: String { get }
  /// The drawing of `description`, ending with a newline.
  func draw(_ description: KindDescription) -> String
}

extension DrawingCommand {
  /// Connects, asks `DESCRIBE kind`, prints the drawing or fails.
  func run() throws {
    let reply = try connection.open().call(["DESCRIBE", kind]).checked()
    let definition: String
    switch reply {
    case .bulk(let text?), .verbatim(_, let text): definition = text
    default: throw MillctlFailure("DESCRIBE \(kind) answered \(reply), not the definition's text")
    }
    do {
      Console.write(draw(try KindDescription(json: definition)))
    } catch {
      throw MillctlFailure("cannot draw kind \(kind): \(error)")
    }
  }
}
