import ArgumentParser
import Foundation
import MillraceDrawing
import MillraceHost

extension Millraced {
  /// What `--dot` and `--mermaid` print.
  enum DrawingFormat {
    /// A Graphviz digraph.
    case dot
    /// A Mermaid state diagram.
    case mermaid
  }

  /// `millraced --dot KIND` / `--mermaid KIND`: prints the kind drawn as a Graphviz digraph
  /// or a Mermaid state diagram, read from the machine files (`--machines`) with the daemon's
  /// own loader (every file must be valid) or from the built-in `counter`'s definition, and
  /// starts no daemon: `millraced --dot auth | dot -Tpng > auth.png`. The drawing is the one
  /// `DOT kind` and `millctl dot` / `millctl mermaid` make of what `DESCRIBE kind` answers.
  /// Otherwise prints `millraced: <why>` on standard error and exits 1.
  func printDrawing(of kind: String, as format: DrawingFormat) throws {
    let catalog: KindCatalog
    do {
      catalog = try KindCatalog(directory: machines)
    } catch {
      throw Self.failure("cannot load \(machines):\n" + error.description)
    }
    let builtIn = ["counter": Counter.definition]
    guard let definition = catalog[text: kind] ?? builtIn[kind] else {
      let known = catalog.names.isEmpty ? "none" : catalog.names.joined(separator: ", ")
      throw Self.failure(
        "no kind \(kind) in \(machines) (kinds there: \(known); built in: "
          + builtIn.keys.sorted().joined(separator: ", ") + ")")
    }
    let description: KindDescription
    do {
      description = try KindDescription(json: definition)
    } catch {
      throw Self.failure("cannot draw kind \(kind): \(error)")
    }
    print(format == .dot ? description.dot() : description.mermaid(), terminator: "")
  }

  private static func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data(("millraced: " + message + "\n").utf8))
    return .failure
  }
}
