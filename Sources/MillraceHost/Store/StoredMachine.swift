/// A machine as the store keeps it: by names, not interned indices, so that a restart with
/// edited machine files still finds its states and inputs (or reports the ones that vanished).
public struct StoredMachine: Hashable, Sendable {
  /// The machine's name.
  public var name: String
  /// Its kind.
  public var kind: String
  /// Its state, as text.
  public var state: String
  /// Its pending timer effects, in the order they must be restored.
  public var timers: [StoredTimer]

  /// Creates a record.
  public init(name: String, kind: String, state: String, timers: [StoredTimer] = []) {
    self.name = name
    self.kind = kind
    self.state = state
    self.timers = timers
  }
}

/// A pending `after` / `every` effect as the store keeps it, with its deadline on the wall
/// clock (nanoseconds since the Unix epoch) so it means the same thing after a restart, and
/// the time it had left when stored, so that a wall clock set back meanwhile cannot delay it
/// (`HostClock.restoredDeadline(of:)`).
public struct StoredTimer: Hashable, Sendable {
  /// The input the timer sends, as text.
  public var input: String
  /// `every` rather than `after`.
  public var repeats: Bool
  /// Delay or period in nanoseconds.
  public var spanNanoseconds: Int64
  /// When it fires next (wall clock); nil while it waits for room on its queue (which clears
  /// `remainingNanoseconds`).
  public var deadlineWallNanoseconds: Int64? {
    didSet { if deadlineWallNanoseconds == nil { remainingNanoseconds = nil } }
  }
  /// How long it had left until `deadlineWallNanoseconds` when it was stored, by the monotonic
  /// clock (never negative); nil when not known (records written before it was kept) and
  /// always without a deadline.
  public var remainingNanoseconds: Int64? {
    didSet { if deadlineWallNanoseconds == nil { remainingNanoseconds = nil } }
  }
  /// The queue index in the kind's layout.
  public var queue: UInt8
  /// The raw effect id (0 for none).
  public var effectID: UInt64

  /// Creates a record.
  public init(
    input: String, repeats: Bool, spanNanoseconds: Int64, deadlineWallNanoseconds: Int64?,
    remainingNanoseconds: Int64? = nil, queue: UInt8, effectID: UInt64
  ) {
    self.input = input
    self.repeats = repeats
    self.spanNanoseconds = spanNanoseconds
    self.deadlineWallNanoseconds = deadlineWallNanoseconds
    self.remainingNanoseconds = deadlineWallNanoseconds == nil ? nil : remainingNanoseconds
    self.queue = queue
    self.effectID = effectID
  }
}
