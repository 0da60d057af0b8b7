import ArgumentParser
import MillraceHost

/// `millctl dot KIND`: the kind's transitions as a Graphviz digraph, read from the machine
/// files (no daemon needed): `millctl dot auth | dot -Tpng > auth.png`.
struct Dot: ParsableCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print a kind's transitions as Graphviz DOT (reads the machine files).",
    discussion: """
      Draw it with: millctl dot auth | dot -Tpng > auth.png
      Kinds compiled into the daemon (such as counter) have no machine file and cannot be drawn.
      """)

  /// `--machines DIR`.
  @Option(help: ArgumentHelp("The directory of machine files.", valueName: "dir"))
  var machines = "./examples/machines"

  /// The kind to draw.
  @Argument(help: "The kind, e.g. auth.") var kind: String

  /// Loads the directory with `KindCatalog` (every file must be valid, as for the daemon) and
  /// prints the kind's DOT.
  func run() throws {
    let catalog: KindCatalog
    do {
      catalog = try KindCatalog(directory: machines)
    } catch {
      throw MillctlFailure("cannot load \(machines):\n" + error.description)
    }
    guard let definition = catalog[kind: kind] else {
      let known = catalog.names.isEmpty ? "none" : catalog.names.joined(separator: ", ")
      throw MillctlFailure("no kind \(kind) in \(machines) (kinds there: \(known))")
    }
    Console.write(definition.dot())
  }
}
