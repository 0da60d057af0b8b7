import MillraceWire

/// `SUBSCRIBE`, `UNSUBSCRIBE`, `PSUBSCRIBE`, `PUNSUBSCRIBE` and the messages, as Redis does
/// them: a confirmation per name with the session's subscription count, messages as
/// `message` / `pmessage` arrays (push frames in RESP3).
extension ControlServer {
  /// Channels (machine names) or glob patterns: the two kinds of subscription.
  enum Target {
    case channel, pattern

    var subscribeWord: String { self == .channel ? "subscribe" : "psubscribe" }
    var unsubscribeWord: String { self == .channel ? "unsubscribe" : "punsubscribe" }
  }

  /// `SUBSCRIBE` / `PSUBSCRIBE`: a confirmation per name, with the session's count.
  ///
  /// On a cluster node a channel is a machine, so `SUBSCRIBE` is routed as Redis routes
  /// `SSUBSCRIBE`: every channel must be in one slot (`-CROSSSLOT`), this node's (`-MOVED`).
  /// Patterns see this node's machines only.
  func subscribe(_ session: Session, _ frame: Frame, to target: Target) {
    if target == .channel, let cluster,
      let route = route(
        frame, keys: Self.channelPositions, in: cluster, asking: session.requestAsking),
      let error = ReplyError(refusing: route)
    {
      return session.fail(error)
    }
    for index in 1..<frame.count {
      let name = frame.string(at: index)
      set(session, target, name, subscribed: true)
      confirm(target.subscribeWord, name, session)
    }
    listenIfNeeded()
  }

  /// `UNSUBSCRIBE` / `PUNSUBSCRIBE`: the names given, or all; one confirmation with a null name
  /// when there was nothing to unsubscribe from.
  func unsubscribe(_ session: Session, _ frame: Frame, from target: Target) {
    let current = target == .channel ? session.channels : session.patterns
    let names = frame.count > 1 ? (1..<frame.count).map(frame.string) : current.sorted()
    for name in names {
      set(session, target, name, subscribed: false)
      confirm(target.unsubscribeWord, name, session)
    }
    if names.isEmpty { confirm(target.unsubscribeWord, nil, session) }
    listenIfNeeded()
  }

  /// Where `SUBSCRIBE`'s channels are: every word after the command's.
  static let channelPositions = KeyPositions(first: 1, last: -1, step: 1)

  /// Unsubscribes every session from the channels `isDropped` picks, telling each as an
  /// `UNSUBSCRIBE` would (a cluster node whose map took the channels' slots away).
  func unsubscribeChannels(where isDropped: (String) -> Bool) {
    for (channel, listeners) in subscriptions.channels where isDropped(channel) {
      for session in listeners.values {
        set(session, .channel, channel, subscribed: false)
        confirm(Target.channel.unsubscribeWord, channel, session)
      }
    }
    listenIfNeeded()
  }

  /// Records in the session and in the registry that `session` listens to `name`, or not.
  private func set(_ session: Session, _ target: Target, _ name: String, subscribed: Bool) {
    switch (target, subscribed) {
    case (.channel, true):
      session.channels.insert(name)
      subscriptions.add(session, channel: name)
    case (.channel, false):
      session.channels.remove(name)
      subscriptions.remove(session, channel: name)
    case (.pattern, true):
      session.patterns.insert(name)
      subscriptions.add(session, pattern: name)
    case (.pattern, false):
      session.patterns.remove(name)
      subscriptions.remove(session, pattern: name)
    }
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
  /// protocol version (and per pattern), without a container per event.
  private func publish(_ message: String, from name: String) {
    var channelBytes = EncodedOnce()
    var patternBytes = EncodedOnce()
    var lastPattern: String? = nil
    subscriptions.forEachListener(
      of: name,
      channel: { session in
        let bytes = channelBytes.range(for: session.version) { version in
          encodeHeld(version) { writer in
            writer.pushHeader(3)
            writer.bulkString("message")
            writer.bulkString(name)
            writer.bulkString(message)
          }
        }
        holdMessage(for: session, bytes: bytes)
      },
      pattern: { pattern, session in
        // A pattern's sessions come one after the other: its encodings serve them all.
        if pattern != lastPattern {
          patternBytes = EncodedOnce()
          lastPattern = pattern
        }
        let bytes = patternBytes.range(for: session.version) { version in
          encodeHeld(version) { writer in
            writer.pushHeader(4)
            writer.bulkString("pmessage")
            writer.bulkString(pattern)
            writer.bulkString(name)
            writer.bulkString(message)
          }
        }
        holdMessage(for: session, bytes: bytes)
      })
  }
}

/// Where a message is encoded in the held bytes, in RESP2 and in RESP3, each made on first use.
private struct EncodedOnce {
  private var resp2: Range<Int>?
  private var resp3: Range<Int>?

  mutating func range(for version: RESPVersion, encode: (RESPVersion) -> Range<Int>) -> Range<Int> {
    switch version {
    case .resp2:
      if let resp2 { return resp2 }
      let made = encode(version)
      resp2 = made
      return made
    case .resp3:
      if let resp3 { return resp3 }
      let made = encode(version)
      resp3 = made
      return made
    }
  }
}
