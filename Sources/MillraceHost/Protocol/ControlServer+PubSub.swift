import MillraceWire

/// `SUBSCRIBE`, `UNSUBSCRIBE`, `PSUBSCRIBE`, `PUNSUBSCRIBE` and the messages, as Redis does
/// them: a confirmation per name with the session's subscription count, messages as
/// `message` / `pmessage` arrays (push frames in RESP3).
extension ControlServer {
  func subscribe(_ session: Session, _ frame: Frame) {
    for index in 1..<frame.count {
      let channel = frame.string(at: index)
      session.channels.insert(channel)
      subscriptions.add(session, channel: channel)
      confirm("subscribe", channel, session)
    }
    listenIfNeeded()
  }

  func psubscribe(_ session: Session, _ frame: Frame) {
    for index in 1..<frame.count {
      let pattern = frame.string(at: index)
      session.patterns.insert(pattern)
      subscriptions.add(session, pattern: pattern)
      confirm("psubscribe", pattern, session)
    }
    listenIfNeeded()
  }

  func unsubscribe(_ session: Session, _ frame: Frame) {
    let names = frame.count > 1 ? (1..<frame.count).map(frame.string) : session.channels.sorted()
    for channel in names {
      session.channels.remove(channel)
      subscriptions.remove(session, channel: channel)
      confirm("unsubscribe", channel, session)
    }
    if names.isEmpty { confirm("unsubscribe", nil, session) }
    listenIfNeeded()
  }

  func punsubscribe(_ session: Session, _ frame: Frame) {
    let names = frame.count > 1 ? (1..<frame.count).map(frame.string) : session.patterns.sorted()
    for pattern in names {
      session.patterns.remove(pattern)
      subscriptions.remove(session, pattern: pattern)
      confirm("punsubscribe", pattern, session)
    }
    if names.isEmpty { confirm("punsubscribe", nil, session) }
    listenIfNeeded()
  }

  /// Drops every subscription of `session` (closed, or `RESET`).
  func unsubscribeAll(_ session: Session) {
    for channel in session.channels { subscriptions.remove(session, channel: channel) }
    for pattern in session.patterns { subscriptions.remove(session, pattern: pattern) }
    session.channels.removeAll()
    session.patterns.removeAll()
    listenIfNeeded()
  }

  /// `[kind, name, count]` (a push frame in RESP3; a null name when there was nothing to
  /// unsubscribe from).
  private func confirm(_ kind: String, _ name: String?, _ session: Session) {
    let count = session.subscriptionCount
    session.reply { writer in
      writer.pushHeader(3)
      writer.bulkString(kind)
      if let name { writer.bulkString(name) } else { writer.null() }
      writer.integer(count)
    }
  }

  /// Hooks the host's events while someone listens, and unhooks them when nobody does (so
  /// that events cost nothing more).
  private func listenIfNeeded() {
    if subscriptions.isEmpty {
      host.onEvent = nil
    } else if host.onEvent == nil {
      host.onEvent = { [unowned self] event, machine in publish(event.message, from: machine.name) }
    }
  }

  /// Holds the message for every listener of `name` until the turn's commit, encoded once per
  /// protocol version.
  private func publish(_ message: String, from name: String) {
    var encoded: [RESPVersion: Range<Int>] = [:]
    subscriptions.forEachListener(
      of: name,
      channel: { session in
        let bytes =
          encoded[session.version]
          ?? encodeHeld(session.version) { writer in
            writer.pushHeader(3)
            writer.bulkString("message")
            writer.bulkString(name)
            writer.bulkString(message)
          }
        encoded[session.version] = bytes
        holdMessage(for: session, bytes: bytes)
      },
      pattern: { pattern, session in
        let bytes = encodeHeld(session.version) { writer in
          writer.pushHeader(4)
          writer.bulkString("pmessage")
          writer.bulkString(pattern)
          writer.bulkString(name)
          writer.bulkString(message)
        }
        holdMessage(for: session, bytes: bytes)
      })
  }
}
