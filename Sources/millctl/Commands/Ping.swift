import ArgumentParser

/// `millctl ping`: prints `PONG` when the daemon answers.
struct Ping: RequestCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Check that the daemon answers (prints PONG).")

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// `PING`.
  var request: [String] { ["PING"] }
}
