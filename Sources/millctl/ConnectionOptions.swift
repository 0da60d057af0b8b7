import ArgumentParser
import MillraceClient

/// Where the daemon listens and how to authenticate: the options of every command that talks
/// to the daemon.
struct ConnectionOptions: ParsableArguments {
  /// The socket used when neither `--socket` nor `$MILLRACE_SOCKET` names one (DESIGN §4.3).
  static let defaultSocket = "./.millrace/millraced.sock"
  /// The environment variable that overrides `defaultSocket`.
  static let socketVariable = "MILLRACE_SOCKET"
  /// The environment variable that supplies `--token` when the option is not given.
  static let tokenVariable = "MILLRACE_TOKEN"

  /// `--socket PATH`.
  @Option(
    help: ArgumentHelp(
      "The daemon's Unix control socket (default: $\(socketVariable), else \(defaultSocket)).",
      valueName: "path"))
  var socket: String?

  /// `--connect HOST:PORT`.
  @Option(
    help: ArgumentHelp(
      "Connect over TCP to a daemon started with --listen, instead of the socket.",
      valueName: "host:port"))
  var connect: String?

  /// `--token T`.
  @Option(
    help: ArgumentHelp(
      "Send AUTH with this token first (default: $\(tokenVariable)).", valueName: "token"))
  var token: String?

  /// Refuses `--socket` with `--connect`, and a `--connect` that is not `HOST:PORT`.
  func validate() throws {
    if socket != nil && connect != nil {
      throw ValidationError("give either --socket or --connect, not both")
    }
    if let connect, !ControlClient.isTCPAddress(connect) {
      throw ValidationError("--connect wants HOST:PORT, [IPV6]:PORT or PORT, not '\(connect)'")
    }
  }

  /// The address as `ControlClient(address:)` takes it.
  var address: String {
    if let connect { return connect }
    let path = socket ?? Environment[Self.socketVariable].flatMap { $0.isEmpty ? nil : $0 }
    return ControlClient.socketAddress(path ?? Self.defaultSocket)
  }

  /// Connects and authenticates. `timeoutSeconds` bounds each wait for a reply; 0 waits for
  /// ever (`watch`, `repl`). Throws `ControlClient.Failure` or, when AUTH is refused,
  /// `MillctlFailure`.
  func open(timeoutSeconds: Int = 30) throws -> ControlClient {
    let client = try ControlClient(address: address, timeoutSeconds: timeoutSeconds)
    if let token = token ?? Environment[Self.tokenVariable], !token.isEmpty {
      try client.call("AUTH", token).checked()
    }
    return client
  }
}
