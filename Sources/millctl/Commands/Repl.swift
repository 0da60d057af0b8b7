import ArgumentParser

/// `millctl repl`: an interactive session with the daemon, or a script read from a pipe.
struct Repl: ParsableCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Type commands to the daemon (or pipe them in) and see the replies.",
    discussion: """
      Words are split on blanks; "double" and 'single' quotes keep blanks. Local commands: \
      history, !! (repeat the last line), !N (repeat line N), exit. On a terminal the line \
      can be edited and Up/Down recall earlier lines (kept in memory only). From a pipe the \
      lines run in order and the exit status is 1 if any of them failed.
      """)

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// Runs the session.
  func run() throws {
    var session = ReplSession(connection: connection, interactive: Console.isInteractive)
    try session.run()
  }
}
