extension MachineFile {
  /// One effect of a row as written. An effect object does exactly one thing:
  /// `{"send": i}`, `{"after": d, "send": i}`, `{"every": d, "send": i}` (these two also take
  /// `"queue"` and `"id"`), `{"cancel": id}` or `{"emit": o}`. `send`, `after`, `every` and
  /// `emit` take `"args"`, a list of expressions: the input's arguments (one per parameter,
  /// in order) or the output's values.
  public enum Effect: Hashable, Sendable {
    /// Feed an input back to the same machine.
    case send(String, args: [String] = [])
    /// Send an input once, after a delay.
    case after(Timer)
    /// Send an input periodically until cancelled.
    case every(Timer)
    /// Cancel every in-flight effect of the machine with this id.
    case cancel(String)
    /// Deliver an output, with values.
    case emit(String, args: [String] = [])

    /// The keys an effect object may have.
    static let keys = ["after", "args", "cancel", "emit", "every", "id", "queue", "send"]

    /// Reads one effect, refusing objects that do none or more than one thing, `queue` or
    /// `id` on effects that are not timers, and malformed durations and names.
    init?(_ field: JSONField) {
      let reader = FieldReader(field, known: Self.keys)
      guard reader.isObject else { return nil }
      var actions = ["after", "every", "cancel", "emit"].filter(reader.contains)
      let timer = actions == ["after"] || actions == ["every"]
      if reader.contains("send"), !timer, actions.count < 2 { actions.append("send") }
      guard actions.count == 1 else {
        let problem =
          actions.isEmpty
          ? "effect needs one of \"send\", \"after\", \"every\", \"cancel\" or \"emit\""
          : "effect combines \(Self.list(actions)); write each as its own effect"
        field.report(problem)
        return nil
      }
      for key in ["queue", "id"] where !timer && reader.contains(key) {
        reader.report("\"\(key)\" applies only to \"after\" and \"every\"", at: key)
      }
      if actions[0] == "cancel", reader.contains("args") {
        reader.report(
          "\"args\" applies only to \"send\", \"after\", \"every\" and \"emit\"", at: "args")
      }
      let args = reader.strings("args") ?? []
      switch actions[0] {
      case "send": self = .send(reader.name("send", "input", required: true) ?? "", args: args)
      case "cancel": self = .cancel(reader.name("cancel", "id", required: true) ?? "")
      case "emit": self = .emit(reader.name("emit", "output", required: true) ?? "", args: args)
      default:
        let action = actions[0]
        if !reader.contains("send") {
          reader.report("\"\(action)\" needs \"send\" (the input to deliver)", at: action)
        }
        let timer = Timer(
          nanoseconds: reader.duration(action) ?? 0,
          send: reader.name("send", "input") ?? "",
          queue: reader.name("queue", "queue"),
          id: reader.name("id", "id"), args: args)
        self = action == "after" ? .after(timer) : .every(timer)
      }
    }

    /// The expressions of `"args"` (none for `cancel`).
    public var args: [String] {
      switch self {
      case .send(_, let args), .emit(_, let args): args
      case .after(let timer), .every(let timer): timer.args
      case .cancel: []
      }
    }

    /// The timer of an `after` or `every` effect; nil for the others.
    public var timer: Timer? {
      switch self {
      case .after(let timer), .every(let timer): timer
      case .send, .cancel, .emit: nil
      }
    }

    /// This effect with its timer replaced by `timer`; an effect without one is unchanged.
    func with(_ timer: Timer) -> Effect {
      switch self {
      case .after: .after(timer)
      case .every: .every(timer)
      case .send, .cancel, .emit: self
      }
    }

    /// `"a"`, `"a" and "b"`, `"a", "b" and "c"`.
    private static func list(_ keys: [String]) -> String {
      let quoted = keys.map(\.quoted)
      return quoted.count == 1
        ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " and " + quoted.last!
    }
  }

  /// An `after` or `every` effect: when, what to send, on which queue, under which id.
  public struct Timer: Hashable, Sendable {
    /// The delay (`after`) or period (`every`) in nanoseconds, always positive.
    public var nanoseconds: Int64
    /// The input to send.
    public var send: String
    /// The queue to run on, or `nil` for the default queue.
    public var queue: String?
    /// The id `cancel` can name, or `nil` for none.
    public var id: String?
    /// The input's arguments, as expressions.
    public var args: [String]

    /// Creates a timer effect in code.
    public init(
      nanoseconds: Int64, send: String, queue: String? = nil, id: String? = nil,
      args: [String] = []
    ) {
      self.nanoseconds = nanoseconds
      self.send = send
      self.queue = queue
      self.id = id
      self.args = args
    }
  }
}
