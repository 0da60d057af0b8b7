/// Who listens to which machines: sessions by channel (a machine name) and by glob pattern,
/// as Redis keeps them. A channel is any word: one that names no machine gets no message.
struct Subscriptions {
  private(set) var channels: [String: [ObjectIdentifier: Session]] = [:]
  private(set) var patterns: [String: (glob: GlobPattern, sessions: [ObjectIdentifier: Session])] =
    [:]

  /// Whether nobody listens.
  var isEmpty: Bool { channels.isEmpty && patterns.isEmpty }

  /// Subscriptions counted per (session, channel) and (session, pattern).
  var count: Int {
    channels.values.reduce(0) { $0 + $1.count }
      + patterns.values.reduce(0) { $0 + $1.sessions.count }
  }

  mutating func add(_ session: Session, channel: String) {
    channels[channel, default: [:]][ObjectIdentifier(session)] = session
  }

  mutating func remove(_ session: Session, channel: String) {
    channels[channel]?[ObjectIdentifier(session)] = nil
    if channels[channel]?.isEmpty == true { channels[channel] = nil }
  }

  mutating func add(_ session: Session, pattern: String) {
    let glob = patterns[pattern]?.glob ?? GlobPattern(pattern)
    var sessions = patterns[pattern]?.sessions ?? [:]
    sessions[ObjectIdentifier(session)] = session
    patterns[pattern] = (glob, sessions)
  }

  mutating func remove(_ session: Session, pattern: String) {
    patterns[pattern]?.sessions[ObjectIdentifier(session)] = nil
    if patterns[pattern]?.sessions.isEmpty == true { patterns[pattern] = nil }
  }

  /// Calls `deliver` for each session subscribed to `name`, then for each (pattern, session)
  /// whose pattern matches it.
  func forEachListener(
    of name: String, channel deliver: (Session) -> Void,
    pattern deliverMatch: (String, Session) -> Void
  ) {
    if let sessions = channels[name] {
      for session in sessions.values { deliver(session) }
    }
    for (pattern, entry) in patterns where entry.glob.matches(name) {
      for session in entry.sessions.values { deliverMatch(pattern, session) }
    }
  }
}
