import ArgumentParser

/// `millctl kinds`: prints the kinds the daemon can spawn, one per line.
struct Kinds: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "List the kinds the daemon can spawn, one per line.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// `KINDS`.
  var request: [String] { ["KINDS"] }
}
