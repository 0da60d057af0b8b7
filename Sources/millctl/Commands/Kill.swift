import ArgumentParser

/// `millctl kill NAME`: removes a machine; prints `OK`.
struct Kill: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Remove a machine, with its timers, effects and stored state.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The machine.
  @Argument(help: "The machine's name.") var name: String

  /// `KILL name`.
  var request: [String] { ["KILL", name] }
}
