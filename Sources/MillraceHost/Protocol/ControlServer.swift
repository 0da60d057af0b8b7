import Millrace
import MillraceUV
import MillraceWire

/// The control protocol (DESIGN §4.1) over a `MachineHost`: the one place that knows RESP and
/// connections. A command table (`commands`) drives dispatch, `COMMAND`, `COMMAND DOCS` and
/// `HELP`; each connection is a typed `Session`; the host below answers in domain results.
///
/// Guarantees:
/// - Replies come in request order. A reply that acknowledges a change (`SPAWN`, `KILL`, a
///   `SEND`'s transition, an `EXEC`) is held and written only after the turn's changes were
///   committed (`turnEnded(_:)`); without a store it is written at once.
/// - A command that reads or changes machines runs only after the connection's earlier `SEND`s
///   were processed, so a pipeline behaves as if each request ran after the previous one.
/// - `MULTI` … `EXEC` runs its commands in one go, with no other client's request in between
///   and every `SEND` processed before the next command, and commits them together.
/// - Pub/sub messages of a turn go out after the same commit, in event order.
/// - Use on the loop thread only.
public final class ControlServer {
  /// What the daemon tells clients about itself (`INFO`, `CONFIG GET`, `HELLO`).
  public struct Facts: Sendable {
    /// Millrace's version (`HELLO`'s `version`, `INFO`'s `millrace_version`).
    public var version = "0"
    /// The daemon's process id.
    public var processID: Int32 = 0
    /// The TCP port listened on (the one the system picked for `--listen` port 0), 0 when
    /// the daemon listens on its Unix socket only.
    public var tcpPort = 0
    /// The Unix control socket's path.
    public var socketPath = ""
    /// The store's directory, empty without a store.
    public var dataDirectory = ""
    /// The most connections served at once.
    public var maxClients = 0
    /// The program's path.
    public var executable = ""

    /// Facts with defaults (for tests).
    public init() {}
  }

  /// The Redis version whose protocol and commands the daemon follows (`INFO`'s
  /// `redis_version`, which tools read to choose what to send).
  static let redisCompatibleVersion = "7.0.0"

  let host: MachineHost
  let token: String?
  let whenFull: FullQueueBehavior
  var facts: Facts
  /// The loop's clock in milliseconds (client ages and idle times).
  let milliseconds: () -> UInt64
  let table = CommandIndex(ControlServer.commands)
  /// This node's cluster when the daemon runs as a cluster node (`--cluster-config`): requests
  /// are routed by its map. Nil otherwise, and then `CLUSTER ...` is refused as a Redis
  /// without cluster support refuses it.
  let cluster: Cluster?
  /// The most names `LIST` answers with; above, it points to `SCAN`.
  public var listLimit = 10_000

  /// Open sessions by connection id.
  @exclusivity(unchecked) var sessions: [UInt64: Session] = [:]
  /// Sessions paused on a full machine queue or on their earlier `SEND`s.
  @exclusivity(unchecked) private var blocked: [ObjectIdentifier: Session] = [:]
  /// Replies held until the turn's commit: where each goes, and its bytes in `heldBytes`.
  @exclusivity(unchecked) private var heldReplies:
    [(session: Session, slot: Connection.ReplySlot, bytes: Range<Int>)] = []
  @exclusivity(unchecked) private var heldMessages: [(session: Session, bytes: Range<Int>)] = []
  /// The encoded held replies and messages of the turn, one after the other.
  private let heldBytes = ByteBuffer()
  /// Subscribers by channel and by pattern.
  @exclusivity(unchecked) var subscriptions = Subscriptions()
  /// Counters for `INFO`.
  @exclusivity(unchecked) var commandsProcessed = 0
  @exclusivity(unchecked) var callsByCommand: [Int]
  @exclusivity(unchecked) var connectionsReceived = 0
  /// The highest heap use `INFO` saw.
  var memoryPeak: UInt64 = 0
  /// Loop milliseconds when the server started (`uptime_in_seconds`).
  let startedAt: UInt64
  /// Loop milliseconds at the last turn's end (commands' times, read once a turn).
  @exclusivity(unchecked) var turnMilliseconds: UInt64
  /// A `RESTORE` placed a machine in this turn (`CrashPoint.restoreAfterCommit`).
  @exclusivity(unchecked) var restoredThisTurn = false
  /// Connections the listening sockets refused (over the limit), for `INFO`.
  public var rejectedConnections: () -> Int = { 0 }
  /// Dispatches what the requests of a read posted, before the other connections' reads
  /// (`RuntimeLoop.dispatchPosted`): called after each read's requests are handed out. Read
  /// on every read, on the loop thread only: no dynamic exclusivity checks.
  @exclusivity(unchecked) public var dispatchPosted: () -> Void = {}

  /// Serves `host`; when `token` is set, a connection must authenticate first. With `cluster`,
  /// the daemon is a node of that cluster: it serves the requests whose machines are in its
  /// slots and redirects the others (docs/cluster.md).
  public init(
    host: MachineHost, token: String?, whenFull: FullQueueBehavior = .wait, facts: Facts = Facts(),
    cluster: Cluster? = nil, milliseconds: @escaping () -> UInt64
  ) {
    self.host = host
    self.cluster = cluster
    self.token = token
    self.whenFull = whenFull
    self.facts = facts
    self.milliseconds = milliseconds
    startedAt = milliseconds()
    turnMilliseconds = startedAt
    callsByCommand = Array(repeating: 0, count: ControlServer.commands.count)
  }

  // MARK: Connections

  /// A connection opened: gives it its session.
  public func open(_ connection: Connection) {
    let session = Session(
      server: self, connection: connection, authenticated: token == nil, now: milliseconds())
    connection.handler = session
    assert(sessions[connection.id] == nil, "two open connections with id \(connection.id)")
    sessions[connection.id] = session
    connectionsReceived += 1
  }

  /// A connection closed: forgets its session and subscriptions.
  public func closed(_ connection: Connection) {
    guard let session = sessions.removeValue(forKey: connection.id) else { return }
    unsubscribeAll(session)
    blocked[ObjectIdentifier(session)] = nil
  }

  /// A request was over-long or malformed (the connection closes after this reply).
  public func framingFailed(_ connection: Connection, _ error: FramingError) {
    _ = connection.write { writer in
      switch error {
      case .tooLong:
        writer.error("TOOLONG", "Protocol error: request longer than the limit of the daemon")
      case .protocol(let reason): writer.error("PROTOCOL", "Protocol error: \(reason)")
      }
    }
  }

  /// Sessions paused on a full machine queue.
  public var blockedCount: Int { blocked.values.reduce(0) { $0 + ($1.blockedSend != nil ? 1 : 0) } }

  // MARK: Dispatch

  /// Runs (or queues, or defers) one request of `session`.
  ///
  /// The common request (a command without subcommands, authenticated, of the right arity,
  /// outside a transaction, subscribed mode and a cluster, with no `SEND` of its connection
  /// waiting before it) runs here; every other case goes through `executeRarely`, kept out of
  /// line so that the common path stays a few cache lines of code.
  func execute(_ frame: Frame, for session: Session) {
    guard !frame.isEmpty else { return }
    guard let index = table.index(of: frame) else {
      return refuse(.unknownCommand(frame), session)
    }
    // The hot path reads the small entry only; the full specification is looked at for a
    // subcommand.
    let entry = table.entries[index]
    guard
      _fastPath(
        !entry.hasSubcommands && session.authenticated && cluster == nil
          && session.transaction == nil && !session.isInSubscribedMode
          && (session.unprocessedSends == 0 || entry.flags.contains(.independentOfSends))
          && CommandSpec.arity(entry.arity, accepts: frame.count))
    else { return executeRarely(frame, index: index, entry: entry, for: session) }
    run(entry, index: index, sub: -1, frame, for: session)
  }

  /// `execute` for every request but the common one: a subcommand, a refusal, a cluster's
  /// routing, a transaction's queueing, subscribed mode, a request deferred behind its
  /// connection's `SEND`s.
  @inline(never)
  private func executeRarely(
    _ frame: Frame, index: Int, entry: CommandIndex.Entry, for session: Session
  ) {
    var entry = entry
    var sub = -1
    if entry.hasSubcommands && frame.count > 1 {
      let container = table.commands[index]
      guard let found = CommandIndex.subcommandIndex(of: container, in: frame) else {
        return refuse(.unknownSubcommand(frame, of: container.name), session)
      }
      let spec = container.subcommands[found]
      entry = CommandIndex.Entry(
        arity: spec.arity, flags: spec.flags, hasSubcommands: false, run: spec.run)
      sub = found
    }
    guard session.authenticated || entry.flags.contains(.noAuth) else {
      return refuse(.noAuth, session)
    }
    guard CommandSpec.arity(entry.arity, accepts: frame.count) else {
      return refuse(.arity(table.name(index: index, sub: sub)), session)
    }
    // A cluster node serves a request that names machines only when their slot is its own,
    // and redirects it otherwise (before queueing: a redirected request dooms its EXEC).
    var slot: Int? = nil
    var asking = false
    // Inside EXEC the transaction was routed as a whole (`refusal(ofExec:in:asking:)`).
    if let cluster, session.execReply == nil {
      asking = session.asking || entry.flags.contains(.asking)
      session.requestAsking = asking
      // As Redis's, ASKING holds for the next command, or for a whole transaction (MULTI,
      // the commands queued, EXEC or DISCARD, which clear it).
      if session.transaction == nil && !entry.flags.contains(.transactionControl) {
        session.asking = false
      }
      let route = self.route(
        frame, keys: table.keys(index: index, sub: sub), in: cluster, asking: asking)
      if let route {
        if let error = ReplyError(refusing: route) { return refuse(error, session) }
        if case .here(let here) = route { slot = here }
      }
    }
    if session.transaction != nil && !entry.flags.contains(.transactionControl) {
      guard !entry.flags.contains(.noMulti) else {
        return refuse(.generic("Command not allowed inside a transaction"), session)
      }
      guard session.transaction!.requests.count < Self.transactionLimit else {
        return refuse(
          .generic(
            "a transaction holds at most \(Self.transactionLimit) commands: split it"
          ), session)
      }
      if let slot { session.transaction?.note(slot: slot) }
      session.transaction?.requests.append(frame)
      return session.reply { $0.simpleString("QUEUED") }
    }
    if session.isInSubscribedMode && !entry.flags.contains(.subscribedContext) {
      let name = table.name(index: index, sub: sub)
      return session.fail(
        .generic(
          "Can't execute '\(name)': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
        ))
    }
    // Pipelined requests behave as if run one after the other: a command that reads or
    // changes machines waits (the connection paused) until this connection's earlier SENDs
    // were processed, so `SEND c inc` then `STATE c` sees the increment.
    if session.unprocessedSends > 0 && !entry.flags.contains(.independentOfSends) {
      // Run again later, it is routed again, with the ASKING that came before it.
      session.asking = asking
      session.deferred = frame
      blocked[ObjectIdentifier(session)] = session
      session.connection.pauseReading()
      return
    }
    run(entry, index: index, sub: sub, frame, for: session)
  }

  /// Counts and runs a request `execute` let through.
  @inline(__always)
  private func run(
    _ entry: CommandIndex.Entry, index: Int, sub: Int, _ frame: Frame, for session: Session
  ) {
    commandsProcessed &+= 1
    callsByCommand[index] &+= 1
    session.lastCommandAt = turnMilliseconds
    session.lastCommand = (index, sub)
    entry.run(self, session, frame)
  }

  /// Answers a request refused before it ran; inside `MULTI` it also dooms the `EXEC`.
  private func refuse(_ error: ReplyError, _ session: Session) {
    session.transaction?.refused = true
    session.fail(error)
  }

  /// Retries every `SEND` waiting for room, and runs every request that waited for its
  /// connection's earlier `SEND`s; a connection whose waiting request went through (or failed
  /// for another reason) resumes reading. Call once per turn, after dispatch (it also reads
  /// the clock for the turn).
  public func retryBlocked() {
    turnMilliseconds = milliseconds()
    guard !blocked.isEmpty else { return }
    for (key, session) in blocked {
      guard session.connection.isOpen else {
        blocked[key] = nil
        continue
      }
      if let frame = session.deferred {
        guard session.unprocessedSends == 0 else { continue }
        session.deferred = nil
        blocked[key] = nil
        execute(frame, for: session)
        if blocked[key] == nil { session.connection.resumeReading() }
        continue
      }
      guard let waiting = session.blockedSend else {
        blocked[key] = nil
        continue
      }
      let result =
        host.storeFailure.map { .failure(.storeUnusable($0, changeMade: false)) }
        ?? session.countingSend {
          host.send(
            waiting.input, to: waiting.name, requester: session, ticket: waiting.slot.rawValue)
        }
      switch result {
      case .success: break
      case .failure(let failure) where failure.code == .busy: continue
      case .failure(let failure):
        // A machine that moved to another node while the SEND waited: sent there.
        let error =
          failure.code == .nomachine
          ? redirection(ofMissing: waiting.name) ?? ReplyError(failure) : ReplyError(failure)
        _ = session.connection.complete(waiting.slot) { $0.error(error.prefix, error.text) }
      }
      session.blockedSend = nil
      blocked[key] = nil
      session.connection.resumeReading()
    }
  }

  /// Pauses `session` until its `SEND` to `name` finds room (`retryBlocked()`).
  func block(_ session: Session, sending input: String, to name: String, slot: Connection.ReplySlot)
  {
    session.blockedSend = (name, input, slot)
    blocked[ObjectIdentifier(session)] = session
    session.connection.pauseReading()
  }

  // MARK: Replies held for the commit

  /// Whether acknowledgments wait for a commit (there is a store).
  var holdsAcknowledgments: Bool { host.durability != .none }

  /// Holds the reply `build` encodes for `slot` until the turn's commit; without a store,
  /// completes the slot at once.
  func hold(for session: Session, slot: Connection.ReplySlot, _ build: (inout RESPWriter) -> Void) {
    guard holdsAcknowledgments else {
      _ = session.connection.complete(slot, build)
      return
    }
    heldReplies.append((session, slot, encodeHeld(session.version, build)))
  }

  /// Holds a pub/sub message for `session` until the turn's commit.
  func holdMessage(for session: Session, bytes: Range<Int>) {
    heldMessages.append((session, bytes))
  }

  /// Appends what `build` encodes to `heldBytes`; returns where it is.
  func encodeHeld(_ version: RESPVersion, _ build: (inout RESPWriter) -> Void) -> Range<Int> {
    let start = heldBytes.count
    var writer = RESPWriter(appendingTo: heldBytes, version: version)
    build(&writer)
    return start..<heldBytes.count
  }

  /// A `SEND` of `session` finished: its reply goes to its slot (held for the commit when
  /// there is a store), or into `EXEC`'s reply.
  func answer(_ session: Session, ticket: UInt64, _ outcome: SendOutcome) {
    // Most sessions wait for no SPAWN: no hashing of the ticket then.
    let spawned =
      ticket == Session.execSpawnTicket
      || !session.spawnTickets.isEmpty && session.spawnTickets.remove(ticket) != nil
    func write(_ writer: inout RESPWriter) {
      if spawned {
        Self.writeSpawned(outcome, into: &writer)
      } else {
        Self.write(outcome, into: &writer)
      }
    }
    if ticket == Session.execTicket || ticket == Session.execSpawnTicket {
      session.execAnswerStart = session.execReply?.buffer.count ?? 0
      return session.reply(write)
    }
    hold(for: session, slot: Connection.ReplySlot(rawValue: ticket), write)
  }

  /// Replaces the answer `answer(_:ticket:_:)` just gave `session` for `ticket` with `error`,
  /// where it waits: the last element of `EXEC`'s reply, held for the turn's commit, or
  /// completed in the connection and not yet written. Returns false when it cannot (already
  /// written).
  func amendAnswer(_ session: Session, ticket: UInt64, with error: ReplyError) -> Bool {
    if ticket == Session.execTicket || ticket == Session.execSpawnTicket {
      guard let exec = session.execReply, session.execAnswerStart <= exec.buffer.count else {
        return false
      }
      exec.buffer.removeLast(exec.buffer.count - session.execAnswerStart)
      var writer = RESPWriter(appendingTo: exec.buffer, version: session.version)
      writer.error(error.prefix, error.text)
      return true
    }
    let slot = Connection.ReplySlot(rawValue: ticket)
    guard holdsAcknowledgments else {
      return session.connection.amendCompleted(slot) { $0.error(error.prefix, error.text) }
    }
    guard
      let index = heldReplies.lastIndex(where: { $0.session === session && $0.slot == slot })
    else { return false }
    heldReplies[index].bytes = encodeHeld(session.version) { $0.error(error.prefix, error.text) }
    return true
  }

  /// A `SPAWN`'s reply once its machine's start ran: `OK`, or `-NOMACHINE` when the machine
  /// was removed before (its start input is always handled).
  static func writeSpawned(_ outcome: SendOutcome, into writer: inout RESPWriter) {
    switch outcome {
    case .moved, .rejected: writer.simpleString("OK")
    case .machineRemoved(let name):
      writer.error("NOMACHINE", "machine \(name) was removed before its entry effects ran")
    }
  }

  /// A `SEND`'s reply: `[from, to]`, or `-REJECTED`, or `-NOMACHINE` for a killed machine.
  static func write(_ outcome: SendOutcome, into writer: inout RESPWriter) {
    switch outcome {
    case .moved(let from, let to):
      writer.arrayHeader(2)
      writer.bulkString(from)
      writer.bulkString(to)
    case .rejected(let input, let state):
      writer.error("REJECTED", "\(input) in \(state)")
    case .machineRemoved(let name):
      writer.error("NOMACHINE", "machine \(name) was removed before the input was processed")
    }
  }

  /// Writes the replies and messages held for the turn: as they are when its commit held, as
  /// the refusal's error when it did not (nothing is acknowledged that was not kept).
  public func turnEnded(_ outcome: TurnOutcome) {
    if _slowPath(restoredThisTurn) {
      restoredThisTurn = false
      CrashPoint.restoreAfterCommit.reach()
    }
    guard !heldReplies.isEmpty || !heldMessages.isEmpty else { return }
    let keep = Self.keptCapacity
    if let refusal = outcome.refusal {
      refuseHeldReplies(refusal)
    } else {
      for held in heldReplies {
        heldBytes.withUnsafeBytes(in: held.bytes) {
          _ = held.session.connection.complete(held.slot, with: $0)
        }
      }
    }
    heldReplies.removeAll(keepingCapacityUpTo: keep)
    for message in heldMessages {
      heldBytes.withUnsafeBytes(in: message.bytes) { _ = message.session.connection.write($0) }
    }
    heldMessages.removeAll(keepingCapacityUpTo: keep)
    heldBytes.removeAll(keepingCapacityUpTo: Self.keptByteCapacity)
  }

  /// Answers every held reply with the error of the turn's refused commit: nothing is
  /// acknowledged that was not kept.
  @inline(never)
  private func refuseHeldReplies(_ refusal: HostFailure) {
    let error = ReplyError(refusal)
    for held in heldReplies {
      _ = held.session.connection.complete(held.slot) { $0.error(error.prefix, error.text) }
    }
  }

  /// The most commands one `MULTI` queues, a bound on the memory a transaction holds until its
  /// `EXEC`: one more is refused and dooms the `EXEC`. It is high, because a client's
  /// pipeline is often a transaction at its defaults (redis-py's `pipeline()`), and an
  /// atomic `EXEC` cannot be cut into slices: it holds the loop for its whole length, about a
  /// millisecond per thousand `SEND`s, as a large transaction holds Redis.
  static let transactionLimit = 100_000

  /// Bytes of held replies and messages kept room for between turns.
  static let keptByteCapacity = 64 * 1024

  /// Entries the per-turn containers keep room for between turns.
  static let keptCapacity = 1024
}
