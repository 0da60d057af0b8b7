import MillraceUV
import MillraceWire

/// One control connection's state, and the handler of its requests (typed: the server keeps
/// sessions, the connection keeps its handler, nothing is recovered from `AnyObject`).
///
/// Read on every request, on the loop thread only: its fields skip dynamic exclusivity checks.
final class Session: ConnectionHandler, SendRequester {
  /// A `MULTI` being queued.
  struct Transaction {
    var requests: [Frame] = []
    /// A request was refused while queueing: `EXEC` aborts.
    var refused = false
    /// On a cluster node: the slot of the first queued request that names machines, then the
    /// first other slot a later one names (`EXEC` answers `-CROSSSLOT` then, as Redis).
    var slots: [Int] = []

    /// Notes that a queued request names machines in `slot`.
    mutating func note(slot: Int) {
      if slots.count < 2 && slots.first != slot { slots.append(slot) }
    }
  }

  /// The ticket of a `SEND` run inside `EXEC`: its reply is the next element of the EXEC
  /// array, not a reserved slot.
  static let execTicket = UInt64.max
  /// The ticket of a `SPAWN` run inside `EXEC` that waits for its machine's start: its `OK` is
  /// the next element of the EXEC array.
  static let execSpawnTicket = UInt64.max - 1
  /// The reply slots (as tickets) of `SPAWN`s waiting for their machines' start: answered
  /// `OK`, not as a `SEND`.
  @exclusivity(unchecked) var spawnTickets: Set<UInt64> = []

  // unowned(unsafe): no reference counting per request. The server outlives its sessions: the
  // daemon keeps it until its loop, every connection and the host are closed.
  unowned(unsafe) let server: ControlServer
  /// The server's host, unretained like the server, for the prefetch stages (several calls a
  /// request): through `_withUnsafeGuaranteedRef`, what they read of it is not retained and
  /// released at each call, as it is through `server.host`.
  let host: Unmanaged<MachineHost>
  let connection: Connection
  /// Whether the client may run commands other than those flagged `noAuth`.
  @exclusivity(unchecked) var authenticated: Bool
  /// `CLIENT SETNAME`.
  @exclusivity(unchecked) var name = ""
  /// `CLIENT SETINFO LIB-NAME` / `LIB-VER`.
  @exclusivity(unchecked) var libraryName = ""
  @exclusivity(unchecked) var libraryVersion = ""
  /// Channels (machine names) and patterns subscribed to.
  @exclusivity(unchecked) var channels: Set<String> = [] {
    didSet { subscriptionCount = channels.count + patterns.count }
  }
  @exclusivity(unchecked) var patterns: Set<String> = [] {
    didSet { subscriptionCount = channels.count + patterns.count }
  }
  /// Subscriptions of both kinds (kept, as every request checks it).
  @exclusivity(unchecked) private(set) var subscriptionCount = 0
  @exclusivity(unchecked) var transaction: Transaction?
  /// The elements of the `EXEC` reply being built (nil outside `EXEC`).
  @exclusivity(unchecked) var execReply: (buffer: ByteBuffer, count: Int)?
  /// Where the last answer to a `SEND` or `SPAWN` inside `EXEC` starts in `execReply`'s
  /// buffer (`ControlServer.amendAnswer`).
  @exclusivity(unchecked) var execAnswerStart = 0
  /// A `SEND` waiting for room in its machine's queue (the connection is paused meanwhile),
  /// with the reply slot it answers in.
  @exclusivity(unchecked) var blockedSend:
    (name: String, input: String, slot: Connection.ReplySlot)?
  /// A request that arrived while earlier `SEND`s of this connection were still queued; it
  /// runs once they are processed (the connection is paused meanwhile).
  @exclusivity(unchecked) var deferred: Frame?
  /// While a request decoded ahead runs, the state its prefetch stages left
  /// (`MachineHost.prefetchSends(from:)`), which a `SEND`'s lookup of its machine may start
  /// from; 0 otherwise.
  @exclusivity(unchecked) var prefetched: UInt64 = 0
  /// `SEND`s of this connection accepted and not answered yet (their inputs still queued), and
  /// the one being posted (`countingSend`).
  @exclusivity(unchecked) var unprocessedSends = 0
  /// Loop milliseconds when the connection opened, and when its last command ran (to a turn).
  let openedAt: UInt64
  @exclusivity(unchecked) var lastCommandAt: UInt64
  /// The last command (`CLIENT LIST`'s `cmd`): its index in the table, and its subcommand's
  /// index or -1; nil before the first.
  @exclusivity(unchecked) var lastCommand: (index: Int, sub: Int)?
  /// `ASKING` came just before this request, or before the `MULTI` of the transaction being
  /// queued (a cluster node's flag, cleared by the next request outside a transaction, by
  /// `EXEC` and `DISCARD`): a slot this node imports is served (docs/cluster.md).
  @exclusivity(unchecked) var asking = false
  /// Whether the request running now came after `ASKING` (what `asking` was when it was
  /// routed), for a command that routes its own words (`SUBSCRIBE`'s channels).
  @exclusivity(unchecked) var requestAsking = false
  /// `CLIENT NO-EVICT` (accepted; the daemon evicts no client).
  @exclusivity(unchecked) var noEvict = false

  init(server: ControlServer, connection: Connection, authenticated: Bool, now: UInt64) {
    self.server = server
    self.host = .passUnretained(server.host)
    self.connection = connection
    self.authenticated = authenticated
    self.openedAt = now
    self.lastCommandAt = now
  }

  /// The connection's id (`CLIENT ID`).
  var id: UInt64 { connection.id }

  /// The RESP version replies are encoded in (the connection's, kept here too, as every reply
  /// reads it).
  @exclusivity(unchecked) var version = RESPVersion.resp2 {
    didSet { connection.replyVersion = version }
  }

  /// RESP2 subscribed mode: only pub/sub commands, PING, QUIT and RESET run.
  var isInSubscribedMode: Bool { subscriptionCount > 0 && version == .resp2 }

  // The calls into the server below read it through `_withUnsafeGuaranteedRef`, as the host:
  // through `server` (unowned(unsafe)) each retains and releases what it reads. They are spelled
  // out at each call: a helper taking the closure left a closure thunk per request (callgrind).
  func connection(_ connection: Connection, received frame: Frame) {
    self.connection(connection, received: frame, prefetched: 0)
  }

  func connection(_ connection: Connection, received frame: Frame, prefetched: UInt64) {
    self.prefetched = prefetched
    Unmanaged.passUnretained(server)._withUnsafeGuaranteedRef { $0.execute(frame, for: self) }
    self.prefetched = 0
  }

  var lookahead: Int { host._withUnsafeGuaranteedRef { $0.lookahead } }

  func connectionDidHandOut(_ connection: Connection) {
    Unmanaged.passUnretained(server)._withUnsafeGuaranteedRef { $0.dispatchPosted() }
  }

  func connection(
    _ connection: Connection, prefetch frames: UnsafeBufferPointer<Frame>,
    into states: UnsafeMutableBufferPointer<UInt64>
  ) -> Bool {
    guard let first = frames.baseAddress else { return false }
    return host._withUnsafeGuaranteedRef { host in
      // Each frame read where it lies: a copy would retain and release its arrays.
      var walking: UInt64 = 0
      for index in frames.indices {
        let state = Self.prefetch(first + index, host)
        states[index] = state
        walking |= state
      }
      return walking != 0
    }
  }

  /// The first stage for `frame`: a SEND's machine (`SEND name input ...`); nothing for other
  /// requests.
  @inline(__always)
  private static func prefetch(_ frame: UnsafePointer<Frame>, _ host: MachineHost) -> UInt64 {
    guard frame.pointee.count >= 3 && frame.pointee.withUnsafeBytes(of: 0, Self.isSend) else {
      return 0
    }
    return host.prefetchSend(
      toNameHash: frame.pointee.withUnsafeBytes(of: 1) { host.nameHash($0) })
  }

  /// Whether `word` is `SEND` in any case: as one load, each byte's case bit set (a byte
  /// with it set is a letter's lower case only for that letter's two cases).
  @inline(__always)
  static func isSend(_ word: UnsafeRawBufferPointer) -> Bool {
    word.count == 4 && word.loadUnaligned(as: UInt32.self) | 0x2020_2020 == 0x646E_6573
  }

  func connection(_ connection: Connection, prefetchFrom states: UnsafeMutableBufferPointer<UInt64>)
    -> Bool
  {
    host._withUnsafeGuaranteedRef { $0.prefetchSends(from: states) }
  }

  /// Runs `post`, the post of a `SEND` answered to this session, counted in
  /// `unprocessedSends`: before it runs, since a `SEND` resolved in place is answered (and
  /// uncounted) before its post returns, and no longer if it is refused.
  @inline(__always)
  func countingSend(_ post: () -> Result<Void, HostFailure>) -> Result<Void, HostFailure> {
    unprocessedSends += 1
    let result = post()
    if case .failure = result { unprocessedSends -= 1 }
    return result
  }

  func sendFinished(ticket: UInt64, _ outcome: SendOutcome) {
    unprocessedSends -= 1
    Unmanaged.passUnretained(server)._withUnsafeGuaranteedRef {
      $0.answer(self, ticket: ticket, outcome)
    }
  }

  func sendOverflowed(ticket: UInt64, _ failure: HostFailure) -> Bool {
    server.amendAnswer(self, ticket: ticket, with: ReplyError(failure))
  }

  // MARK: Replies

  /// Writes a reply now (behind any reserved slot), or as the next element of `EXEC`'s reply.
  func reply(_ build: (inout RESPWriter) -> Void) {
    if let exec = execReply {
      var writer = RESPWriter(appendingTo: exec.buffer, version: version)
      build(&writer)
      execReply?.count += 1
    } else {
      _ = connection.write(build)
    }
  }

  /// An error reply: `-PREFIX text`.
  func fail(_ error: ReplyError) {
    reply { $0.error(error.prefix, error.text) }
  }

  /// A reply that acknowledges a change: held until the turn's commit (see
  /// `ControlServer.hold`), or the next element of `EXEC`'s reply (the whole of which is held).
  func acknowledge(_ build: (inout RESPWriter) -> Void) {
    if execReply != nil {
      reply(build)
    } else {
      server.hold(for: self, slot: connection.reserveReply(), build)
    }
  }
}
