import ArgumentParser

/// `millctl state NAME`: prints the machine's state.
struct State: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(abstract: "Print a machine's state.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The machine.
  @Argument(help: "The machine's name.") var name: String

  /// `STATE name`.
  var request: [String] { ["STATE", name] }
}
