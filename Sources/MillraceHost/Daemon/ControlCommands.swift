import MillraceUV
import MillraceWire

/// Executes control protocol v1 (DESIGN §4.1) for one daemon: parses each request frame,
/// runs it against the `MachineHost`, and writes the reply in request order.
///
/// Replies that acknowledge a durable change go into a reserved reply slot that the host
/// completes after the turn's commit; every other reply is written at once (and still waits
/// behind any earlier reserved slot of the same connection).
public final class ControlCommands {
  /// The lines `HELP` answers with.
  public static let help = [
    "PING [message] - +PONG, or the message",
    "HELP - this list",
    "KINDS - the kinds that can be spawned",
    "SPAWN kind name [state] - create a machine",
    "SEND name input - process an input; replies [from, to] once processed",
    "STATE name - the machine's state",
    "LIST [kind] - machine names",
    "KILL name - remove a machine, its timers and its stored state",
    "SUBSCRIBE name... - stream replies and outputs (* = every machine)",
    "UNSUBSCRIBE [name...] - stop streaming",
    "STATS - counters, INFO style",
    "AUTH token - authenticate (when the daemon requires a token)",
    "QUIT - close the connection",
  ]

  private let host: MachineHost
  private let token: String?
  private let whenFull: FullQueueBehavior
  /// Checked on every turn (loop thread only): no dynamic exclusivity checks.
  @exclusivity(unchecked) private var blocked: [ObjectIdentifier: Connection] = [:]
  /// Extra `key:value` lines for `STATS` (connections, uptime, ...).
  public var extraStatistics: () -> [(String, String)] = { [] }

  /// Serves `host`; when `token` is set, a connection must `AUTH` first.
  public init(host: MachineHost, token: String?, whenFull: FullQueueBehavior = .wait) {
    self.host = host
    self.token = token
    self.whenFull = whenFull
  }

  /// Connections paused on a full machine queue.
  public var blockedCount: Int {
    blocked.values.reduce(0) {
      $0 + (($1.handler as? ClientSession)?.blockedSend != nil ? 1 : 0)
    }
  }

  /// Retries every `SEND` waiting for room, and runs every command that waited for its
  /// connection's earlier `SEND`s to be processed; a connection whose waiting request went
  /// through (or failed for another reason) resumes reading. Call once per turn, after
  /// dispatch.
  public func retryBlocked() {
    guard !blocked.isEmpty else { return }
    for (key, connection) in blocked {
      guard connection.isOpen, let session = connection.handler as? ClientSession else {
        blocked[key] = nil
        continue
      }
      if let frame = session.deferred {
        guard session.unprocessedSends == 0 else { continue }
        session.deferred = nil
        blocked[key] = nil
        run(ControlCommand(frame), frame, session, connection)
        connection.resumeReading()
        continue
      }
      guard let (name, input) = session.blockedSend else {
        blocked[key] = nil
        continue
      }
      let result =
        host.storeFailure.map { .failure(.storeUnusable($0, changeMade: false)) }
        ?? host.send(
          input, to: name, replyingOn: connection, session: session,
          slot: connection.reserveReply())
      if case .failure(let failure) = result {
        guard failure.code != .busy else { continue }
        fail(connection, failure)
      }
      session.blockedSend = nil
      blocked[key] = nil
      connection.resumeReading()
    }
  }

  /// The session to attach to a new connection.
  func session() -> ClientSession { ClientSession(authenticated: token == nil, commands: self) }

  /// A connection closed: forget its subscriptions.
  public func connectionClosed(_ connection: Connection) {
    guard let session = connection.handler as? ClientSession else { return }
    host.unsubscribe(connection, from: session.subscriptions)
    session.subscriptions.removeAll()
    blocked[ObjectIdentifier(connection)] = nil
  }

  /// A request was over-long or malformed (the connection closes after this reply).
  public func framingFailed(_ connection: Connection, _ error: FramingError) {
    switch error {
    case .tooLong: fail(connection, .toolong, "request too long")
    case .protocol(let reason): fail(connection, .protocol, reason)
    }
  }

  /// A connection opened.
  public func connectionOpened(_ connection: Connection) {
    connection.handler = session()
  }

  /// Runs one request.
  public func execute(_ frame: Frame, on connection: Connection) {
    guard !frame.isEmpty else { return }
    // `connectionOpened` attaches a session to every connection before its first request.
    let session: ClientSession
    if let handler = connection.handler as? ClientSession {
      session = handler
    } else {
      session = self.session()
      connection.handler = session
    }
    let command = ControlCommand(frame)
    if !session.authenticated && command?.isAllowedUnauthenticated != true {
      fail(connection, .denied, "authentication required: AUTH <token>")
      return
    }
    // Pipelined requests behave as if run one after the other: a command that reads or
    // changes machines waits (the connection paused) until this connection's earlier SENDs
    // were processed, so `SEND c inc` then `STATE c` sees the increment.
    if command?.isIndependentOfSends != true && session.unprocessedSends > 0 {
      session.deferred = frame
      blocked[ObjectIdentifier(connection)] = connection
      connection.pauseReading()
      return
    }
    run(command, frame, session, connection)
  }

  private func run(
    _ command: ControlCommand?, _ frame: Frame, _ session: ClientSession,
    _ connection: Connection
  ) {
    guard let command else {
      return fail(connection, .unknown, "unknown command '\(frame.string(at: 0).prefix(64))'")
    }
    let arguments = frame.count - 1
    switch command {
    case .send:
      guard arguments == 2 else { return arity(connection, command) }
      guard !refusesChange(connection) else { return }
      // The words are looked up as they arrived; they are read as text only to report a
      // failure (an invalid name first, like every other command).
      let result = frame.withUnsafeBytes(of: 1) { name in
        frame.withUnsafeBytes(of: 2) { input in
          NameRule.isValid(utf8: input)
            ? host.send(
              utf8: input, to: name, replyingOn: connection, session: session,
              slot: connection.reserveReply())
            : .failure(.init(.args, ""))
        }
      }
      guard case .failure(let failure) = result else { return }
      guard let name = validName(frame, 1, connection), let input = validName(frame, 2, connection)
      else { return }
      if failure.code == .busy && whenFull == .wait {
        session.blockedSend = (name, input)
        blocked[ObjectIdentifier(connection)] = connection
        connection.pauseReading()
      } else {
        fail(connection, failure)
      }
    case .ping:
      guard arguments <= 1 else { return arity(connection, command) }
      if arguments == 1 {
        let message = frame[1]
        _ = connection.write { $0.bulkString(message) }
      } else {
        _ = connection.write { $0.simpleString("PONG") }
      }
    case .help:
      _ = connection.write { $0.array(Self.help) }
    case .kinds:
      guard arguments == 0 else { return arity(connection, command) }
      _ = connection.write { $0.array(host.kindNames) }
    case .spawn:
      guard arguments == 2 || arguments == 3 else { return arity(connection, command) }
      guard !refusesChange(connection) else { return }
      guard let kind = validName(frame, 1, connection), let name = validName(frame, 2, connection)
      else { return }
      var state: String? = nil
      if arguments == 3 {
        guard let given = validName(frame, 3, connection) else { return }
        state = given
      }
      switch host.spawn(kind: kind, name: name, state: state) {
      case .success: holdOK(connection)
      case .failure(let failure): fail(connection, failure)
      }
    case .state:
      guard arguments == 1 else { return arity(connection, command) }
      guard let name = validName(frame, 1, connection) else { return }
      guard let state = host.machine(name)?.stateText else {
        return fail(connection, .nomachine, "no machine \(name)")
      }
      _ = connection.write { $0.bulkString(state) }
    case .list:
      guard arguments <= 1 else { return arity(connection, command) }
      var kind: String? = nil
      if arguments == 1 {
        guard let given = validName(frame, 1, connection) else { return }
        guard host.kind(given) != nil else { return fail(connection, .nokind, "no kind \(given)") }
        kind = given
      }
      _ = connection.write { $0.array(host.machineNames(kind: kind)) }
    case .kill:
      guard arguments == 1 else { return arity(connection, command) }
      guard !refusesChange(connection) else { return }
      guard let name = validName(frame, 1, connection) else { return }
      guard host.kill(name) else { return fail(connection, .nomachine, "no machine \(name)") }
      holdOK(connection)
    case .subscribe:
      guard arguments >= 1 else { return arity(connection, command) }
      for index in 1...arguments {
        let name = frame.string(at: index)
        guard name == "*" || NameRule.isValid(name) else {
          return fail(connection, .args, "invalid name \"\(name)\" (\(NameRule.summary) or *)")
        }
        session.subscriptions.insert(name)
        host.subscribe(connection, to: name)
        let count = session.subscriptions.count
        _ = connection.write { writer in
          writer.arrayHeader(3)
          writer.bulkString("subscribe")
          writer.bulkString(name)
          writer.integer(count)
        }
      }
    case .unsubscribe:
      let names =
        arguments == 0 ? session.subscriptions.sorted() : (1...arguments).map(frame.string)
      host.unsubscribe(connection, from: names)
      for name in names {
        session.subscriptions.remove(name)
        let count = session.subscriptions.count
        _ = connection.write { writer in
          writer.arrayHeader(3)
          writer.bulkString("unsubscribe")
          writer.bulkString(name)
          writer.integer(count)
        }
      }
    case .stats:
      guard arguments == 0 else { return arity(connection, command) }
      let text = statistics().map { "\($0.0):\($0.1)" }.joined(separator: "\r\n") + "\r\n"
      _ = connection.write { $0.bulkString(text) }
    case .auth:
      guard arguments == 1 else { return arity(connection, command) }
      guard let token, frame.string(at: 1) == token else {
        return fail(connection, .denied, token == nil ? "no token is required" : "wrong token")
      }
      session.authenticated = true
      _ = connection.write { $0.simpleString("OK") }
    case .quit:
      _ = connection.write { $0.simpleString("OK") }
      connection.closeAfterWriting()
    }
  }

  /// `key:value` lines of the daemon's and the runtime's counters.
  public func statistics() -> [(String, String)] {
    let runtime = host.runtime.statistics
    var lines: [(String, String)] = extraStatistics()
    lines += [
      ("machines", "\(host.machineCount)"),
      ("machines_high_water", "\(runtime.machinesHighWater)"),
      ("machines_capacity", "\(host.runtime.capacity.machines)"),
      ("spawns_refused", "\(runtime.spawnsRefused)"),
      ("inputs_dispatched", "\(runtime.dispatched)"),
      ("timers", "\(runtime.timers)"),
      ("timers_high_water", "\(runtime.timersHighWater)"),
      ("timers_capacity", "\(host.runtime.capacity.timers)"),
      ("diagnostics", "\(runtime.diagnostics)"),
      ("subscriptions", "\(host.subscriptionCount)"),
      ("clients_waiting_for_room", "\(blockedCount)"),
      ("durability", host.durability.rawValue),
      ("commits", "\(host.commits)"),
      ("commit_failures", "\(host.commitFailures)"),
      ("store_checkpoints", "\(host.storeCheckpoints)"),
      (
        "store_status",
        host.durability == .none ? "none" : host.storeFailure == nil ? "ok" : "failed"
      ),
      ("store_failure", host.storeFailure?.description ?? ""),
      ("store_unstored_changes", "\(host.unstoredChanges)"),
    ]
    return lines
  }

  private func validName(_ frame: Frame, _ index: Int, _ connection: Connection) -> String? {
    // The rule is checked on the frame's bytes; the string is made once they passed.
    guard NameRule.isValid(utf8: frame[index]) else {
      let name = frame.string(at: index)
      fail(connection, .args, "invalid name \"\(name.prefix(140))\" (\(NameRule.summary))")
      return nil
    }
    return frame.string(at: index)
  }

  /// Answers a command that would change machines with `misconf` while the store is unusable;
  /// returns whether it did.
  private func refusesChange(_ connection: Connection) -> Bool {
    guard let failure = host.storeFailure else { return false }
    fail(connection, .storeUnusable(failure, changeMade: false))
    return true
  }

  private func holdOK(_ connection: Connection) {
    host.hold(for: connection.reserveReply(), on: connection) { $0.simpleString("OK") }
  }

  private func arity(_ connection: Connection, _ command: ControlCommand) {
    fail(connection, .args, "wrong number of arguments for '\(command.name)'")
  }

  private func fail(_ connection: Connection, _ failure: ControlFailure) {
    fail(connection, failure.code, failure.text)
  }

  private func fail(_ connection: Connection, _ code: ControlError, _ text: String) {
    _ = connection.write { $0.error("ERR", "\(code.rawValue) \(text)") }
  }
}
