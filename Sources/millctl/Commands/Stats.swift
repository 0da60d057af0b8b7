import ArgumentParser

/// `millctl stats`: prints the daemon's counters, `key:value` per line in `# Section`s (INFO).
struct Stats: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print the daemon's counters (INFO), one key:value per line, by section.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// `STATS`.
  var request: [String] { ["STATS"] }
}
