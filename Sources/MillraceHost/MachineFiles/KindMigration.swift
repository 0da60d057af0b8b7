/// How the old names of a kind map to its new ones (`"migrate"` in a machine file), so that
/// machines stored or running under an earlier version of the file keep their place:
///
/// ```json
/// "migrate": { "states": { "closed": "shut" }, "inputs": { "autoClose": "timeout" } }
/// ```
///
/// A machine in state `closed` moves to `shut`; a pending timer that sends `autoClose` sends
/// `timeout` from then on. Once a kind is compiled, every target is a name of the kind and no
/// source is (see `KindCompiler`), so a name is mapped at most once and never chained.
public struct KindMigration: Hashable, Sendable {
  /// Old state name to new state name.
  public var states: [String: String]
  /// Old input name to new input name (the inputs pending timers send).
  public var inputs: [String: String]

  /// The keys a `migrate` object may have.
  static let keys = ["inputs", "states"]

  /// Creates a mapping in code; empty by default (nothing renamed).
  public init(states: [String: String] = [:], inputs: [String: String] = [:]) {
    self.states = states
    self.inputs = inputs
  }

  /// Reads a `migrate` object, refusing unknown keys and keys that are not names.
  init(_ field: JSONField) {
    let reader = FieldReader(field, known: Self.keys)
    states = reader.members("states", "state") { $0.string() } ?? [:]
    inputs = reader.members("inputs", "input") { $0.string() } ?? [:]
  }

  /// Whether nothing is renamed.
  public var isEmpty: Bool { states.isEmpty && inputs.isEmpty }
}
