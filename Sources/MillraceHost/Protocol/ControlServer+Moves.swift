import MillraceClient
import MillraceWire

/// Moving machines between nodes, with Redis's commands (docs/cluster.md): `DUMP` gives a
/// machine's record, `RESTORE` (and `RESTORE-ASKING`, which `MIGRATE` sends) places a machine
/// from one, and `MIGRATE` moves machines to another node: each is placed and committed there
/// before it is deleted here, so that at every moment at least one node keeps it.
extension ControlServer {
  /// `DUMP name`: the machine's record (`MachineDump`), or null when there is no such machine.
  func dump(_ session: Session, _ frame: Frame) {
    guard let name = validName(frame, 1, session, machine: true) else { return }
    guard let record = try? host.recordsToMove([name]).first else {
      return session.reply { $0.null() }
    }
    let bytes = MachineDump.encode(record)
    session.reply { $0.bulkString(bytes) }
  }

  /// `RESTORE name ttl payload [REPLACE]` (and `RESTORE-ASKING`): places the machine of a
  /// `DUMP` payload under `name`, acknowledged once committed. `ttl` must be 0 (machines do
  /// not expire); Redis's `ABSTTL`, `IDLETIME` and `FREQ` are refused.
  func restore(_ session: Session, _ frame: Frame) {
    guard !refusesChange(session) else { return }
    guard let name = validName(frame, 1, session, machine: true) else { return }
    guard let ttl = Int(frame.string(at: 2)) else { return session.fail(.notInteger) }
    guard ttl == 0 else {
      return session.fail(
        .generic("Invalid TTL value: machines do not expire (give 0)"))
    }
    var replacing = false
    for index in 4..<max(frame.count, 4) {
      guard frame.string(at: index).uppercased() == "REPLACE" else {
        return session.fail(.syntax)
      }
      replacing = true
    }
    guard let record = frame.withUnsafeBytes(of: 3, MachineDump.decode) else {
      return session.fail(.generic("DUMP payload version or checksum are wrong"))
    }
    switch host.restore(record, as: name, replacing: replacing) {
    case .success:
      restoredThisTurn = true
      session.acknowledge { $0.simpleString("OK") }
    case .failure(let failure) where failure.code == .exists:
      session.fail(ReplyError("BUSYKEY", "Target key name already exists."))
    case .failure(let failure):
      session.fail(ReplyError(failure))
    }
  }

  /// `MIGRATE host port name|"" 0 timeout [COPY] [REPLACE] [AUTH password | AUTH2 user password]
  /// [KEYS name ...]`, as Redis's: moves the machines named to the node at `host:port`. The
  /// machines' queued inputs are processed here first; then each machine's record is sent as
  /// `RESTORE-ASKING` (one connection, pipelined), and each machine the target acknowledged
  /// (it is committed there) is deleted here, the reply waiting for that commit. The loop
  /// waits for the target, at most `timeout` milliseconds for each step, as Redis's does.
  ///
  /// Replies `OK`; `NOKEY` when none of the machines is here; on a target's error, that error
  /// (the machines acknowledged before it moved); on a connection failure or timeout, `IOERR`
  /// (the machines not acknowledged stay here: a `MIGRATE ... REPLACE` again moves them, over
  /// any copy the target kept). `COPY` is refused: a machine is moved, never copied.
  func migrate(_ session: Session, _ frame: Frame) {
    guard !refusesChange(session) else { return }
    guard case .success(let request) = MigrateRequest.parse(frame) else {
      if case .failure(let error) = MigrateRequest.parse(frame) { session.fail(error) }
      return
    }
    let records: [StoredMachine]
    do {
      records = try host.recordsToMove(request.names)
    } catch {
      return session.fail(
        ReplyError(
          "TRYAGAIN",
          "\(error.machines) still had queued inputs after a dispatch: MIGRATE them again"))
    }
    guard !records.isEmpty else { return session.reply { $0.simpleString("NOKEY") } }
    let (moved, failure) = send(records, to: request)
    if !moved.isEmpty { CrashPoint.migrateBeforeDelete.reach() }
    for name in moved { _ = host.kill(name) }
    let gone = Set(moved)
    if !gone.isEmpty { unsubscribeChannels { gone.contains($0) } }
    if let failure { return session.fail(failure) }
    session.acknowledge { $0.simpleString("OK") }
  }

  /// Sends `records` to the target of `request` as `RESTORE-ASKING`s; returns the names of
  /// the machines it acknowledged, in order, and what stopped the rest, if anything.
  private func send(_ records: [StoredMachine], to request: MigrateRequest) -> (
    moved: [String], failure: ReplyError?
  ) {
    let client: ControlClient
    do {
      client = try ControlClient(
        address: .tcp(host: request.host, port: request.port),
        timeoutMilliseconds: request.timeoutMilliseconds)
    } catch {
      return ([], ReplyError("IOERR", "error or timeout connecting to the client"))
    }
    do {
      if let auth = request.auth { try client.send(auth) }
      for record in records {
        var words = [Array("RESTORE-ASKING".utf8), Array(record.name.utf8), [UInt8(ascii: "0")]]
        words.append(MachineDump.encode(record))
        if request.replace { words.append(Array("REPLACE".utf8)) }
        try client.send(words: words)
      }
    } catch {
      return ([], ReplyError("IOERR", "error or timeout writing to target instance"))
    }
    var moved: [String] = []
    do {
      let replies = request.auth == nil ? records.count : records.count + 1
      for index in 0..<replies {
        let reply = try client.readReply()
        if case .error(let text) = reply {
          return (moved, .generic("Target instance replied with error: \(text)"))
        }
        if request.auth == nil || index > 0 { moved.append(records[moved.count].name) }
      }
    } catch {
      return (moved, ReplyError("IOERR", "error or timeout reading to target instance"))
    }
    return (moved, nil)
  }
}

/// A `MIGRATE` request's words, checked.
struct MigrateRequest {
  var host: String
  var port: Int
  var timeoutMilliseconds: Int
  var replace = false
  /// The `AUTH` request to send first, if any.
  var auth: [String]?
  var names: [String]

  /// The request in `frame`, or the error Redis would reply.
  static func parse(_ frame: Frame) -> Result<MigrateRequest, ReplyError> {
    guard let port = Int(frame.string(at: 2)), (1...65_535).contains(port) else {
      return .failure(.generic("Invalid port: give 1-65535"))
    }
    guard let database = Int(frame.string(at: 4)), let timeout = Int(frame.string(at: 5)) else {
      return .failure(.notInteger)
    }
    guard database == 0 else {
      return .failure(.generic("millraced has one database: MIGRATE to database 0"))
    }
    // As Redis: a timeout of 0 or less is a second.
    var request = MigrateRequest(
      host: frame.string(at: 1), port: port, timeoutMilliseconds: timeout > 0 ? timeout : 1000,
      names: [])
    var index = 6
    var keys: [String]?
    while index < frame.count {
      let option = frame.string(at: index).uppercased()
      switch option {
      case "COPY":
        return .failure(
          .generic("MIGRATE COPY is refused: a machine is moved, never copied (it would run twice)")
        )
      case "REPLACE": request.replace = true
      case "AUTH" where index + 1 < frame.count:
        request.auth = ["AUTH", frame.string(at: index + 1)]
        index += 1
      case "AUTH2" where index + 2 < frame.count:
        request.auth = ["AUTH", frame.string(at: index + 1), frame.string(at: index + 2)]
        index += 2
      case "KEYS":
        guard frame.string(at: 3).isEmpty else {
          return .failure(
            .generic(
              "When using MIGRATE KEYS option, the key argument must be set to the empty string"))
        }
        keys = (index + 1..<frame.count).map(frame.string)
        index = frame.count
        continue
      default:
        return .failure(.syntax)
      }
      index += 1
    }
    request.names = keys ?? [frame.string(at: 3)]
    return .success(request)
  }
}
