import ArgumentParser

/// `millctl stats`: prints the daemon's counters, `key:value` per line.
struct Stats: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print the daemon's counters, one key:value per line.")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// `STATS`.
  var request: [String] { ["STATS"] }
}
