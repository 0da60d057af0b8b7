import ArgumentParser

/// `millctl list [KIND]`: prints machine names, one per line.
struct List: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "List the machines, one name per line (only those of KIND if given).")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// The kind to filter on.
  @Argument(help: "Only machines of this kind.") var kind: String?

  /// `LIST [kind]`.
  var request: [String] { ["LIST"] + (kind.map { [$0] } ?? []) }
}
