// millctl: the command-line client of millraced (DESIGN §4.3). See docs/millctl.md.
import ArgumentParser
import MillraceClient

#if canImport(Glibc)
  import Glibc
#endif

/// The `millctl` root command: parses the command line, runs the subcommand, and turns a
/// failure into one line on standard error and exit status 1 (usage errors exit 2).
@main
struct Millctl: ParsableCommand {
  /// The subcommands and the help text.
  static let configuration = CommandConfiguration(
    commandName: "millctl",
    abstract: "Control a running millraced: send inputs, inspect and watch machines.",
    discussion: """
      Every command talks to the daemon over its control socket (RESP2, the Redis protocol). \
      The socket is --socket, else $MILLRACE_SOCKET, else \
      \(ConnectionOptions.defaultSocket); --connect HOST:PORT uses TCP instead. \
      `millctl dot KIND` and `millctl mermaid KIND` draw a kind the daemon serves       (`millraced --dot KIND` or `--mermaid KIND` without a daemon).
      """,
    subcommands: [
      Send.self, State.self, List.self, Kinds.self, Spawn.self, Kill.self, Watch.self,
      Stats.self, Ping.self, Describe.self, Dot.self, Mermaid.self, Repl.self,
    ])

  /// The connection options, accepted before the subcommand too (`millctl --socket P send ...`).
  @OptionGroup var connection: ConnectionOptions

  /// The exit status of a usage error (argument-parser's own is 64, `EX_USAGE`).
  static let usageStatus: Int32 = 2

  /// Runs the command line; a `MillctlFailure` or a connection failure prints
  /// `millctl: <message>` and exits 1; a usage error prints argument-parser's message and
  /// exits 2; help and anything else go to argument-parser's handling.
  static func main() {
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch let failure as MillctlFailure {
      exit(reporting: failure.message)
    } catch let failure as ControlClient.Failure {
      exit(reporting: failure.description)
    } catch let error where exitCode(for: error) == .validationFailure {
      Console.error(fullMessage(for: error))
      Glibc.exit(usageStatus)
    } catch {
      exit(withError: error)
    }
  }

  private static func exit(reporting message: String) -> Never {
    Console.error("millctl: " + message)
    Glibc.exit(ExitCode.failure.rawValue)
  }
}
