import Foundation
import Testing

@testable import MillraceHost

/// Where the test data lives, found from this file's path (no bundle resources needed).
enum TestData {
  /// `Tests/MillraceHostTests`.
  static let testsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
  /// `Tests/MillraceHostTests/Fixtures/<name>`.
  static func fixtures(_ name: String) -> String {
    testsDirectory.appendingPathComponent("Fixtures").appendingPathComponent(name).path
  }
  /// The shipped `examples/machines` directory.
  static let examples = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("examples/machines").path
}

/// Compiles machine-file JSON text named `t.json`.
func compile(_ json: String, file: String = "t.json") throws(MachineFileErrors) -> KindDefinition {
  try KindDefinition(json: Data(json.utf8), file: file)
}

/// The descriptions of the errors compiling `json` produces (none if it compiles).
func errors(_ json: String) -> [String] {
  do {
    _ = try compile(json)
    return []
  } catch {
    return error.errors.map(\.description)
  }
}

/// A machine file of kind `k` starting in `a`, with `transitions` (JSON list items) and other
/// top-level members in `extra` (JSON members followed by a comma).
func machine(_ transitions: String, extra: String = "") -> String {
  #"{ "kind": "k", "initial": "a", \#(extra) "transitions": [ \#(transitions) ] }"#
}

extension KindDefinition {
  /// The name of the state reached from `state` by `input`, "stay" when the row stays, or
  /// "rejected" — by names, for readable expectations.
  func outcome(_ input: String, in state: String) -> String {
    guard let row = firstMatch(input: inputs.index(of: input)!, state: states.index(of: state)!)
    else { return "rejected" }
    return rows[row].to.map { states[$0] } ?? "stay"
  }
}
