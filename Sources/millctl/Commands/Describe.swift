import ArgumentParser

/// `millctl describe KIND`: prints the kind's definition, the JSON of a machine file, as the
/// daemon serves it (`DESCRIBE kind`).
struct Describe: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print a kind's definition as machine-file JSON (asks the daemon).")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The kind.
  @Argument(help: "The kind, e.g. auth.") var kind: String

  /// `DESCRIBE kind`.
  var request: [String] { ["DESCRIBE", kind] }
}
