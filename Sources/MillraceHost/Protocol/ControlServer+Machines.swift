import MillraceUV
import MillraceWire

/// The machine commands: `SPAWN`, `SEND`, `STATE`, `KILL`, `KINDS`, `LIST`, `SCAN`.
extension ControlServer {
  func send(_ session: Session, _ frame: Frame) {
    guard !refusesChange(session) else { return }
    let inExec = session.execReply != nil
    // A slot keeps the reply's place; outside EXEC it is reserved before the post so that the
    // words are looked up as they arrived, without a string.
    let slot = inExec ? nil : session.connection.reserveReply()
    let ticket = slot?.rawValue ?? Session.execTicket
    let result = post(frame, session, ticket)
    guard _fastPath(!inExec), case .success = result else {
      return sendRarely(session, frame, result, slot: slot, ticket: ticket)
    }
  }

  /// `send` for a `SEND` inside `EXEC` or one its post refused: room made for it where it
  /// waits for room, the refusal answered.
  @inline(never)
  private func sendRarely(
    _ session: Session, _ frame: Frame, _ result: Result<Void, HostFailure>,
    slot: Connection.ReplySlot?, ticket: UInt64
  ) {
    let inExec = slot == nil
    var result = result
    if case .failure(let failure) = result, failure.code == .busy, inExec || whenFull == .wait {
      // Make room by processing what is queued, here and now (their replies are held for the
      // turn's commit like any other): inside EXEC nothing else may run in between; outside,
      // pausing the connection until the turn's end would cut a pipeline's replies into one
      // write per turn and stop and restart reading the socket each time (many clients
      // pipelining to one machine: 7 writes and 2 `epoll_ctl` per 16 requests).
      let (rounds, batch) =
        inExec
        ? (Self.execRoomRounds, Self.execDispatchBatch) : (Self.roomRounds, Self.roomBatch)
      // Replies of other connections' SENDs (durability none answers them at once) go out
      // once per connection when the batch ends, not one write each.
      session.connection.loop.batchWrites {
        for _ in 0..<rounds {
          guard host.runtime.dispatch(limit: batch) > 0 else { break }
          result = post(frame, session, ticket)
          guard case .failure(let again) = result, again.code == .busy else { break }
        }
      }
    }
    switch result {
    case .success:
      if inExec { processQueuedSends(of: session) }
    case .failure(let failure):
      guard let name = validName(frame, 1, session, slot, machine: true),
        let input = validName(frame, 2, session, slot)
      else { return }
      if let slot, failure.code == .busy && whenFull == .wait {
        block(session, sending: input, to: name, slot: slot)
      } else if let slot {
        _ = session.connection.complete(slot) { $0.error(ReplyError(failure).prefix, failure.text) }
      } else {
        session.fail(ReplyError(failure))
      }
    }
  }

  /// Posts a `SEND`'s input and arguments, looked up by the request's bytes, counted in the
  /// session's `unprocessedSends` until it is answered. The words are not checked against the
  /// name rule first: no machine or input has a name that breaks it, so such a word is not
  /// found, and the refusal's answer (`sendRarely`) reports it as an invalid name.
  private func post(_ frame: Frame, _ session: Session, _ ticket: UInt64) -> Result<
    Void, HostFailure
  > {
    let prefetched = session.prefetched
    return session.countingSend {
      frame.withUnsafeBytes(of: 1) { name in
        frame.withUnsafeBytes(of: 2) { input in
          guard frame.count > 3 else {
            return host.send(
              utf8: input, to: name, prefetched: prefetched, requester: session, ticket: ticket)
          }
          return frame.withArguments(from: 3) { arguments in
            host.send(
              utf8: input, arguments: arguments, to: name, prefetched: prefetched,
              requester: session, ticket: ticket)
          }
        }
      }
    }
  }

  /// Dispatches until every `SEND` of `session` (in `EXEC`) was processed, so that the next
  /// command of the transaction sees its effect.
  private func processQueuedSends(of session: Session) {
    var rounds = 0
    while session.unprocessedSends > 0 && rounds < Self.execDispatchRounds {
      guard host.runtime.dispatch(limit: Self.execDispatchBatch) > 0 else { break }
      rounds += 1
    }
  }

  /// Bounds on the work one `SEND` inside `EXEC` may do to be processed.
  static let execDispatchBatch = 1024
  static let execDispatchRounds = 4096
  static let execRoomRounds = 64
  /// Bounds on the turns a `SEND` outside `EXEC` that finds its machine's queue full runs to
  /// make room before it waits (`block`): a machine's default queue, four times.
  static let roomBatch = 64
  static let roomRounds = 4

  func spawn(_ session: Session, _ frame: Frame) {
    guard !refusesChange(session) else { return }
    guard let kind = validName(frame, 1, session),
      let name = validName(frame, 2, session, machine: true)
    else {
      return
    }
    var state: String? = nil
    if frame.count == 4 {
      guard let given = validName(frame, 3, session) else { return }
      state = given
    }
    // A machine whose states have entry effects is acknowledged once they ran, as a SEND
    // is (its reply slot reserved now), so that `OK` waits for the commit keeping the timers
    // they started: a `kill -9` after `OK` cannot lose them.
    let inExec = session.execReply != nil
    let slot = inExec ? nil : session.connection.reserveReply()
    let ticket = slot?.rawValue ?? Session.execSpawnTicket
    switch host.spawn(kind: kind, name: name, state: state, answering: session, ticket: ticket) {
    case .success((_, started: true)):
      if let slot {
        hold(for: session, slot: slot) { $0.simpleString("OK") }
      } else {
        session.reply { $0.simpleString("OK") }
      }
    case .success((_, started: false)):
      session.unprocessedSends += 1
      if inExec { processQueuedSends(of: session) } else { session.spawnTickets.insert(ticket) }
    case .failure(let failure):
      if let slot {
        _ = session.connection.complete(slot) { $0.error(ReplyError(failure).prefix, failure.text) }
      } else {
        session.fail(ReplyError(failure))
      }
    }
  }

  /// `STATE name [WITHPATH] [WITHCONTEXT]`: the leaf state (or, `WITHPATH`, its path) as a
  /// bulk string; `WITHCONTEXT`, an array of it and then each variable's name and value.
  func state(_ session: Session, _ frame: Frame) {
    guard let name = validName(frame, 1, session, machine: true) else { return }
    var (withPath, withContext) = (false, false)
    for index in 2..<frame.count {
      switch frame.string(at: index).uppercased() {
      case "WITHPATH": withPath = true
      case "WITHCONTEXT": withContext = true
      default: return session.fail(.syntax)
      }
    }
    guard let machine = host.machine(name), let state = machine.stateText else {
      return session.fail(ReplyError(HostFailure(.nomachine, "no machine \(name)")))
    }
    guard withPath || withContext, let details = machine.stateDetails else {
      return session.reply { $0.bulkString(state) }
    }
    let first = withPath ? details.path : state
    guard withContext else { return session.reply { $0.bulkString(first) } }
    let words = [first] + details.context.flatMap { [$0.name, $0.value] }
    session.reply { $0.array(words) }
  }

  func kill(_ session: Session, _ frame: Frame) {
    guard !refusesChange(session) else { return }
    guard let name = validName(frame, 1, session, machine: true) else { return }
    // While the machine's slot migrates, a machine killed here would be missing here, and a
    // copy the target kept from a MIGRATE whose reply was lost (IOERR) would be served in
    // its place: the kill waits for the move (the machine, moved, is killed on the target).
    if let map = cluster?.map, map.migrating[Int(HashSlot.of(name))] != nil {
      return session.fail(
        ReplyError(
          "TRYAGAIN", "machine \(name)'s slot is migrating: KILL it once it moved (-ASK then)"))
    }
    guard host.kill(name) else {
      return session.fail(ReplyError(HostFailure(.nomachine, "no machine \(name)")))
    }
    session.acknowledge { $0.simpleString("OK") }
  }

  func kinds(_ session: Session, _ frame: Frame) {
    let names = host.kindNames
    session.reply { $0.array(names) }
  }

  /// `DBSIZE`: how many machines this node hosts (what `redis-cli --cluster check` shows per
  /// node).
  func dbSize(_ session: Session, _ frame: Frame) {
    let count = host.machineCount
    session.reply { $0.integer(count) }
  }

  func list(_ session: Session, _ frame: Frame) {
    var kind: String? = nil
    if frame.count == 2 {
      guard let given = validName(frame, 1, session) else { return }
      guard host.kind(given) != nil else {
        return session.fail(ReplyError(HostFailure(.nokind, "no kind \(given)")))
      }
      kind = given
    }
    let count = kind.map(host.machineCount(kind:)) ?? host.machineCount
    guard count <= listLimit else {
      return session.fail(
        .generic(
          "LIST would answer \(count) names, more than \(listLimit): use SCAN cursor [MATCH pattern] [COUNT n] [TYPE kind]"
        ))
    }
    let names = host.machineNames(kind: kind)
    session.reply { $0.array(names) }
  }

  /// `SCAN cursor [MATCH pattern] [COUNT n] [TYPE kind]`: Redis's reply, `[next cursor,
  /// [names]]`, and its guarantee (a machine hosted for the whole iteration is returned at
  /// least once).
  func scan(_ session: Session, _ frame: Frame) {
    guard let cursor = UInt64(frame.string(at: 1)) else {
      return session.fail(.generic("invalid cursor"))
    }
    var pattern: GlobPattern? = nil
    var count = 10
    var kind: String? = nil
    var index = 2
    while index < frame.count {
      guard index + 1 < frame.count else { return session.fail(.syntax) }
      let value = frame.string(at: index + 1)
      if frame.part(index, equalsIgnoringCase: "MATCH") {
        pattern = value == "*" ? nil : GlobPattern(value)
      } else if frame.part(index, equalsIgnoringCase: "COUNT") {
        guard let given = Int(value) else { return session.fail(.notInteger) }
        guard given >= 1 else { return session.fail(.syntax) }
        count = min(given, Self.scanCountLimit)
      } else if frame.part(index, equalsIgnoringCase: "TYPE") {
        kind = value
      } else {
        return session.fail(.syntax)
      }
      index += 2
    }
    // As Redis: visit COUNT buckets at a time until about COUNT names are found, or ten
    // times COUNT buckets were visited, or the iteration ended; and never more than
    // `scanVisitLimit` buckets in one call, whatever COUNT says.
    var names: [String] = []
    var next = cursor
    var visited = 0
    let visitLimit = min(10 * count, Self.scanVisitLimit)
    repeat {
      let step = min(count, visitLimit - visited)
      next = host.scanMachines(from: next, count: step) { machine in
        if let kind, machine.kind != kind { return }
        if let pattern, !pattern.matches(machine.name) { return }
        names.append(machine.name)
      }
      visited += step
    } while next != 0 && names.count < count && visited < visitLimit
    session.reply { writer in
      writer.arrayHeader(2)
      writer.bulkString(String(next))
      writer.array(names)
    }
  }

  /// The most names one `SCAN` step looks for, whatever its `COUNT`, and the most buckets
  /// one call visits, so that a call holds the loop for a few milliseconds at most at a
  /// million machines (measured: `docs/performance-notes.md`). The cursor carries on where
  /// the call stopped.
  static let scanCountLimit = 1_000
  static let scanVisitLimit = 4_096

  /// The word at `index` if it is a valid name (of a machine, with `machine`); otherwise
  /// answers the error (in `slot` when one was reserved) and returns nil.
  func validName(
    _ frame: Frame, _ index: Int, _ session: Session, _ slot: Connection.ReplySlot? = nil,
    machine: Bool = false
  ) -> String? {
    // The rule is checked on the frame's bytes; the string is made once they passed.
    let valid =
      machine
      ? NameRule.isValidMachineName(utf8: frame[index]) : NameRule.isValid(utf8: frame[index])
    guard valid else {
      let error = ReplyError.invalidName(frame.string(at: index), machine: machine)
      if let slot {
        _ = session.connection.complete(slot) { $0.error(error.prefix, error.text) }
      } else {
        session.fail(error)
      }
      return nil
    }
    return frame.string(at: index)
  }

  /// Answers a command that would change machines with `MISCONF` while the store is unusable;
  /// returns whether it did.
  func refusesChange(_ session: Session) -> Bool {
    guard let failure = host.storeFailure else { return false }
    refuseChange(session, failure)
    return true
  }

  /// Answers `session`'s change with `MISCONF` (out of line: the store seldom fails).
  @inline(never)
  private func refuseChange(_ session: Session, _ failure: StoreFailure) {
    session.fail(ReplyError(.storeUnusable(failure, changeMade: false)))
  }
}
