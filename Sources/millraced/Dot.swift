import ArgumentParser
import Foundation
import MillraceHost

extension Millraced {
  /// `millraced --dot KIND`: prints the kind's transitions as a Graphviz digraph, read from the
  /// machine files (`--machines`) with the daemon's own loader (every file must be valid), and
  /// starts no daemon: `millraced --dot auth | dot -Tpng > auth.png`. Otherwise prints
  /// `millraced: <why>` on standard error and exits 1.
  func printDOT(of kind: String) throws {
    let catalog: KindCatalog
    do {
      catalog = try KindCatalog(directory: machines)
    } catch {
      throw Self.failure("cannot load \(machines):\n" + error.description)
    }
    guard let definition = catalog[kind: kind] else {
      let known = catalog.names.isEmpty ? "none" : catalog.names.joined(separator: ", ")
      throw Self.failure("no kind \(kind) in \(machines) (kinds there: \(known))")
    }
    print(definition.dot(), terminator: "")
  }

  private static func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data(("millraced: " + message + "\n").utf8))
    return .failure
  }
}
