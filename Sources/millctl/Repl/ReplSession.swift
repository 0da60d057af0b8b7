import ArgumentParser
import MillraceClient

/// One `repl` run: reads lines, runs the local commands (`history`, `!!`, `!N`, `exit`,
/// `quit`), sends everything else to the daemon and prints the replies like redis-cli.
///
/// Interactive (standard input and output are terminals): a prompt, line editing unless
/// `TERM=dumb`, errors reported and the session goes on; a lost connection is re-opened at
/// the next command. Otherwise (a pipe or a file): lines are executed silently in order, a
/// lost connection ends the run with exit status 1, and so does reaching the end after any
/// error reply.
struct ReplSession {
  /// The prompt of an interactive session.
  static let prompt = "millrace> "

  private let connection: ConnectionOptions
  private let interactive: Bool
  private let editing: Bool
  private var client: ControlClient?
  private var history = LineHistory()
  private var failed = false

  /// A session over `connection`; `interactive` decides prompt, editing and error policy.
  init(connection: ConnectionOptions, interactive: Bool) {
    self.connection = connection
    self.interactive = interactive
    editing = interactive && Environment["TERM"] != "dumb"
  }

  /// Connects (failing at once when the daemon is not running), then runs lines until the
  /// end of input or `exit`.
  mutating func run() throws {
    client = try connection.open(timeoutSeconds: 0)
    if interactive {
      Console.line("Connected to \(connection.address). HELP lists the commands; exit ends.")
    }
    while let line = nextLine() {
      guard try handle(line) else { break }
    }
    if failed && !interactive { throw ExitCode.failure }
  }

  private func nextLine() -> String? {
    guard interactive else { return readLine() }
    while editing {
      switch LineEditor.read(prompt: Self.prompt, history: history.entries) {
      case .line(let line): return line
      case .interrupted: continue
      case .end, nil: return nil
      }
    }
    Console.write(Self.prompt)
    return readLine()
  }

  /// Runs one line; false when the session should end.
  private mutating func handle(_ entered: String) throws -> Bool {
    var trimmed = Substring(entered)
    while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
    while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
    var line = String(trimmed)
    guard !line.isEmpty, !line.hasPrefix("#") else { return true }
    switch history.expand(line) {
    case .none: break
    case .missing: return report("(error) no such history entry: \(line)")
    case .line(let recalled):
      line = recalled
      if interactive { Console.line(line) }
    }
    history.add(line)
    guard let words = try? WordSplitter.split(line) else {
      return report("(error) unbalanced quotes")
    }
    switch words.first?.lowercased() {
    case nil: return true
    case "exit", "quit": return false
    case "history":
      Console.line(history.listing)
      return true
    default:
      return try execute(words)
    }
  }

  /// Sends `words` and prints the replies: one, or one per name for `(P)SUBSCRIBE` and
  /// `(P)UNSUBSCRIBE`; after a `(P)SUBSCRIBE`, messages until interrupted.
  private mutating func execute(_ words: [String]) throws -> Bool {
    var command = words[0].uppercased()
    if command == "PSUBSCRIBE" { command = "SUBSCRIBE" }
    let names = words.count - 1
    let replies =
      switch command {
      // With no name: one error, or one confirmation (nothing was subscribed here).
      case "SUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE": max(1, names)
      default: 1
      }
    do {
      let client = try self.client ?? connection.open(timeoutSeconds: 0)
      self.client = client
      try client.send(words)
      for _ in 0..<replies {
        let reply = try client.read()
        Console.line(reply.replText)
        guard case .error = reply else { continue }
        failed = true
        // A refused name ends a SUBSCRIBE early, perhaps after other names were subscribed:
        // start over on a fresh connection rather than mix messages into later replies.
        if command == "SUBSCRIBE" { self.client = nil }
        return true
      }
      if command == "SUBSCRIBE" {
        if interactive { Console.line("Reading messages... (press Ctrl-C to quit)") }
        try MessageStream(client: client).printMessages()
      }
      return true
    } catch {
      guard interactive else { throw error }
      client = nil
      return report("(error) \((error as? MillctlFailure)?.message ?? "\(error)")")
    }
  }

  /// Prints an error of the session itself and notes the failure; the session goes on.
  private mutating func report(_ text: String) -> Bool {
    Console.line(text)
    failed = true
    return true
  }
}
