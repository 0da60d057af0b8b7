import ArgumentParser

/// `millctl watch NAME...`: subscribes and prints each reply and output of the machines as
/// `HH:MM:SS.mmm name: text` until interrupted, or until `--count` messages.
struct Watch: ParsableCommand {
  /// Help text.
  static let configuration = CommandConfiguration(
    abstract: "Print every reply and output of machines as they happen, until interrupted.",
    discussion: """
      Each line is 'HH:MM:SS.mmm name: text', where text is '<input> <from> <to>', \
      'rejected <input> <state>' or 'emit <output>'. Use '*' (quoted) for every machine.
      """)

  /// The connection options.
  @OptionGroup var connection: ConnectionOptions

  /// `--count N`.
  @Option(help: "Stop after this many messages.") var count: Int?

  /// The machines.
  @Argument(help: "Machine names, or '*' for every machine.") var names: [String]

  /// Requires a name and a positive count.
  func validate() throws {
    if names.isEmpty { throw ValidationError("name at least one machine, or '*'") }
    if let count, count < 1 { throw ValidationError("--count must be at least 1") }
  }

  /// Subscribes and prints messages.
  func run() throws {
    let stream = MessageStream(client: try connection.open(timeoutSeconds: 0))
    try stream.subscribe(names)
    try stream.printMessages(limit: count)
  }
}
