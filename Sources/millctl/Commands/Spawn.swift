import ArgumentParser

/// `millctl spawn KIND NAME [STATE]`: creates a machine; prints `OK`.
struct Spawn: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Create a machine of KIND named NAME, in STATE or the kind's initial state.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The kind.
  @Argument(help: "The kind, e.g. door (see 'millctl kinds').") var kind: String

  /// The new machine's name.
  @Argument(help: "The new machine's name.") var name: String

  /// The state to start in.
  @Argument(help: "The state to start in (default: the kind's initial state).")
  var state: String?

  /// `SPAWN kind name [state]`.
  var request: [String] { ["SPAWN", kind, name] + (state.map { [$0] } ?? []) }
}
