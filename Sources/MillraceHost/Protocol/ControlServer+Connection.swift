import MillraceUV
import MillraceWire

/// The connection commands every client library sends: `PING`, `ECHO`, `HELLO`, `AUTH`,
/// `SELECT`, `RESET`, `QUIT` and `CLIENT ...`, answered as Redis answers them.
extension ControlServer {
  func ping(_ session: Session, _ frame: Frame) {
    let message = frame.count > 1 ? Array(frame[1]) : nil
    if session.isInSubscribedMode {
      // RESP2 subscribed mode answers as a message would come.
      return session.reply { writer in
        writer.arrayHeader(2)
        writer.bulkString("pong")
        writer.bulkString(message ?? [])
      }
    }
    session.reply { writer in
      if let message { writer.bulkString(message) } else { writer.simpleString("PONG") }
    }
  }

  func echo(_ session: Session, _ frame: Frame) {
    let message = Array(frame[1])
    session.reply { $0.bulkString(message) }
  }

  /// `HELLO [protover [AUTH username password] [SETNAME clientname]]`.
  func hello(_ session: Session, _ frame: Frame) {
    var version = session.version
    var index = 1
    if frame.count > 1 {
      guard let number = Int(frame.string(at: 1)) else {
        return session.fail(.generic("Protocol version is not an integer or out of range"))
      }
      guard let given = RESPVersion(rawValue: number) else {
        return session.fail(ReplyError("NOPROTO", "unsupported protocol version"))
      }
      version = given
      index = 2
    }
    var credentials: (user: String, password: String)? = nil
    var name: String? = nil
    while index < frame.count {
      let rest = frame.count - index - 1
      if frame.part(index, equalsIgnoringCase: "AUTH") && rest >= 2 {
        credentials = (frame.string(at: index + 1), frame.string(at: index + 2))
        index += 3
      } else if frame.part(index, equalsIgnoringCase: "SETNAME") && rest >= 1 {
        name = frame.string(at: index + 1)
        index += 2
      } else {
        return session.fail(.generic("Syntax error in HELLO option '\(frame.string(at: index))'"))
      }
    }
    if let credentials {
      guard accepts(user: credentials.user, password: credentials.password) else {
        return session.fail(.wrongPass)
      }
      session.authenticated = true
    }
    guard session.authenticated else {
      return session.fail(
        ReplyError(
          "NOAUTH",
          "HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
        ))
    }
    if let name {
      guard Self.isValidClientName(name) else { return session.fail(Self.badClientName) }
      session.name = name
    }
    session.version = version
    session.reply { writer in
      writer.mapHeader(7)
      writer.bulkString("server")
      writer.bulkString("millraced")
      writer.bulkString("version")
      writer.bulkString(facts.version)
      writer.bulkString("proto")
      writer.integer(version.rawValue)
      writer.bulkString("id")
      writer.integer(Int(session.id))
      writer.bulkString("mode")
      writer.bulkString(cluster == nil ? "standalone" : "cluster")
      writer.bulkString("role")
      writer.bulkString("master")
      writer.bulkString("modules")
      writer.arrayHeader(0)
    }
  }

  /// `AUTH password` or `AUTH default password`: the daemon's token is the default user's
  /// password.
  func auth(_ session: Session, _ frame: Frame) {
    guard frame.count <= 3 else { return session.fail(.syntax) }
    guard token != nil else {
      return session.fail(
        .generic(
          "AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
        ))
    }
    let user = frame.count == 3 ? frame.string(at: 1) : "default"
    guard accepts(user: user, password: frame.string(at: frame.count - 1)) else {
      return session.fail(.wrongPass)
    }
    session.authenticated = true
    session.reply { $0.simpleString("OK") }
  }

  private func accepts(user: String, password: String) -> Bool {
    guard user == "default" else { return false }
    return token == nil || password == token
  }

  func select(_ session: Session, _ frame: Frame) {
    guard let index = Int(frame.string(at: 1)) else { return session.fail(.notInteger) }
    guard index == 0 else {
      return session.fail(.generic("DB index is out of range (millraced has one database, 0)"))
    }
    session.reply { $0.simpleString("OK") }
  }

  /// `RESET`: the connection as new (RESP2, no name, no transaction, no subscription, and
  /// not authenticated when a token is required).
  func reset(_ session: Session, _ frame: Frame) {
    session.transaction = nil
    session.asking = false
    unsubscribeAll(session)
    session.name = ""
    session.noEvict = false
    session.authenticated = token == nil
    session.version = .resp2
    session.reply { $0.simpleString("RESET") }
  }

  func quit(_ session: Session, _ frame: Frame) {
    session.reply { $0.simpleString("OK") }
    session.connection.closeAfterWriting()
  }

  // MARK: CLIENT

  func clientID(_ session: Session, _ frame: Frame) {
    let id = Int(session.id)
    session.reply { $0.integer(id) }
  }

  func clientSetName(_ session: Session, _ frame: Frame) {
    let name = frame.string(at: 2)
    guard Self.isValidClientName(name) else { return session.fail(Self.badClientName) }
    session.name = name
    session.reply { $0.simpleString("OK") }
  }

  func clientGetName(_ session: Session, _ frame: Frame) {
    let name = session.name
    session.reply { writer in
      if name.isEmpty { writer.null() } else { writer.bulkString(name) }
    }
  }

  /// `CLIENT SETINFO LIB-NAME name` / `LIB-VER version`.
  func clientSetInfo(_ session: Session, _ frame: Frame) {
    let value = frame.string(at: 3)
    guard Self.isValidClientName(value) else {
      return session.fail(
        .generic("\(frame.string(at: 2)) cannot contain spaces, newlines or special characters."))
    }
    if frame.part(2, equalsIgnoringCase: "LIB-NAME") {
      session.libraryName = value
    } else if frame.part(2, equalsIgnoringCase: "LIB-VER") {
      session.libraryVersion = value
    } else {
      return session.fail(.generic("Unrecognized option '\(frame.string(at: 2))'"))
    }
    session.reply { $0.simpleString("OK") }
  }

  func clientInfo(_ session: Session, _ frame: Frame) {
    let line = clientLine(session) + "\n"
    session.reply { $0.verbatim(line) }
  }

  /// `CLIENT LIST [TYPE normal|pubsub] [ID id...]`.
  func clientList(_ session: Session, _ frame: Frame) {
    var selected = sessions.values.sorted { $0.id < $1.id }
    var index = 2
    while index + 1 < frame.count {
      if frame.part(index, equalsIgnoringCase: "TYPE") {
        let pubsub = frame.part(index + 1, equalsIgnoringCase: "PUBSUB")
        selected = selected.filter { ($0.subscriptionCount > 0) == pubsub }
        index += 2
      } else if frame.part(index, equalsIgnoringCase: "ID") {
        let ids = Set((index + 1..<frame.count).compactMap { UInt64(frame.string(at: $0)) })
        selected = selected.filter { ids.contains($0.id) }
        index = frame.count
      } else {
        return session.fail(.syntax)
      }
    }
    guard index == frame.count else { return session.fail(.syntax) }
    let text = selected.map { clientLine($0) + "\n" }.joined()
    session.reply { $0.verbatim(text) }
  }

  /// `CLIENT KILL addr` (the old form: `+OK`), or `CLIENT KILL ID id | ADDR addr | LADDR addr
  /// | USER name | SKIPME yes|no ...` (the number killed).
  func clientKill(_ session: Session, _ frame: Frame) {
    if frame.count == 3 {
      let address = frame.string(at: 2)
      // The oldest client at that address, as Redis walks its client list (every client of a
      // Unix socket has the same address).
      let matching = sessions.values.filter { Self.address(of: $0) == address }
      guard let victim = matching.min(by: { $0.id < $1.id }) else {
        return session.fail(.generic("No such client"))
      }
      session.reply { $0.simpleString("OK") }
      return disconnect(victim)
    }
    guard frame.count % 2 == 0 else { return session.fail(.syntax) }
    var filters: [(Session) -> Bool] = []
    var skipMe = true
    for index in stride(from: 2, to: frame.count, by: 2) {
      let value = frame.string(at: index + 1)
      if frame.part(index, equalsIgnoringCase: "ID") {
        guard let id = UInt64(value) else { return session.fail(.syntax) }
        filters.append { $0.id == id }
      } else if frame.part(index, equalsIgnoringCase: "ADDR") {
        filters.append { Self.address(of: $0) == value }
      } else if frame.part(index, equalsIgnoringCase: "USER") {
        filters.append { _ in value == "default" }
      } else if frame.part(index, equalsIgnoringCase: "SKIPME") {
        skipMe = value.lowercased() != "no"
      } else if frame.part(index, equalsIgnoringCase: "TYPE") {
        let pubsub = value.lowercased() == "pubsub"
        filters.append { ($0.subscriptionCount > 0) == pubsub }
      } else if frame.part(index, equalsIgnoringCase: "LADDR") {
        filters.append { _ in false }  // local addresses are not tracked: matches no client
      } else {
        return session.fail(.syntax)
      }
    }
    let victims = sessions.values.filter { victim in
      !(skipMe && victim === session) && filters.allSatisfy { $0(victim) }
    }
    let count = victims.count
    session.reply { $0.integer(count) }
    for victim in victims { disconnect(victim) }
  }

  /// Closes a killed client's connection after what was already queued for it.
  private func disconnect(_ victim: Session) {
    victim.connection.closeAfterWriting()
  }

  func clientNoEvict(_ session: Session, _ frame: Frame) {
    guard frame.part(2, equalsIgnoringCase: "ON") || frame.part(2, equalsIgnoringCase: "OFF") else {
      return session.fail(.syntax)
    }
    session.noEvict = frame.part(2, equalsIgnoringCase: "ON")
    session.reply { $0.simpleString("OK") }
  }

  /// One `CLIENT LIST` line, with Redis's fields (those that mean something here).
  func clientLine(_ session: Session) -> String {
    let now = milliseconds()
    var flags = session.transaction != nil ? "x" : ""
    if session.subscriptionCount > 0 { flags += "P" }
    if session.blockedSend != nil || session.deferred != nil { flags += "b" }
    if session.noEvict { flags += "e" }
    let fields: [(String, String)] = [
      ("id", "\(session.id)"), ("addr", Self.address(of: session)),
      ("name", session.name), ("age", "\((now &- session.openedAt) / 1000)"),
      ("idle", "\((now &- session.lastCommandAt) / 1000)"), ("flags", flags.isEmpty ? "N" : flags),
      ("db", "0"), ("sub", "\(session.channels.count)"), ("psub", "\(session.patterns.count)"),
      ("ssub", "0"), ("multi", "\(session.transaction.map { $0.requests.count } ?? -1)"),
      ("omem", "\(session.connection.queuedByteCount)"),
      (
        "cmd", session.lastCommand.map { table.name(index: $0.index, sub: $0.sub) } ?? "NULL"
      ),
      ("user", "default"), ("resp", "\(session.version.rawValue)"),
      ("lib-name", session.libraryName), ("lib-ver", session.libraryVersion),
    ]
    return fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
  }

  /// `host:port` for TCP; the socket path and `:0` for a Unix socket, as Redis shows it.
  static func address(of session: Session) -> String {
    let peer = session.connection.peer
    return peer.hasPrefix("unix:") ? String(peer.dropFirst(5)) + ":0" : peer
  }

  /// Redis's rule for client names and library names: no spaces, newlines or special
  /// characters (bytes `!` to `~` only).
  static func isValidClientName(_ name: String) -> Bool {
    name.utf8.allSatisfy { $0 >= 33 && $0 <= 126 }
  }

  static let badClientName = ReplyError.generic(
    "Client names cannot contain spaces, newlines or special characters.")
}
