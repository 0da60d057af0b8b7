extension KindDescription {
  /// An effect as written, described in words by `description`.
  public enum Effect: Hashable, Sendable, CustomStringConvertible {
    /// Feeds an input back to the machine.
    case send(Message)
    /// Delivers an output.
    case emit(Message)
    /// Cancels the in-flight effects with an id.
    case cancel(String)
    /// A one-shot timer that sends an input.
    case after(Timer)
    /// A periodic timer that sends an input.
    case every(Timer)

    /// `send retry(3)`, `emit locked(name, attempts)`, `cancel req`,
    /// `after 1s send loginOK (queue request, id req)`, `every 250ms send tick`: the queue
    /// is left out when it is `default`, durations are shown as written.
    public var description: String {
      switch self {
      case .send(let message): "send \(message)"
      case .emit(let message): "emit \(message)"
      case .cancel(let id): "cancel \(id)"
      case .after(let timer): "after \(timer)"
      case .every(let timer): "every \(timer)"
      }
    }
  }

  /// An input or output named with its arguments.
  public struct Message: Hashable, Sendable, CustomStringConvertible {
    /// The input's or output's name.
    public var name: String
    /// The arguments, expressions, in order.
    public var arguments: [String]

    /// A message made in code.
    public init(_ name: String, arguments: [String] = []) {
      self.name = name
      self.arguments = arguments
    }

    /// `retry(3)`, or the bare name without arguments.
    public var description: String {
      KindDescription.applied(name, to: arguments)
    }
  }

  /// A timer effect's duration, input, queue and id.
  public struct Timer: Hashable, Sendable, CustomStringConvertible {
    /// The duration as written (`"1s"`).
    public var duration: String
    /// The input it sends.
    public var message: Message
    /// The queue it runs on, when given.
    public var queue: String?
    /// Its id, when given.
    public var id: String?

    /// A timer made in code.
    public init(_ duration: String, send message: Message, queue: String? = nil, id: String? = nil)
    {
      self.duration = duration
      self.message = message
      self.queue = queue
      self.id = id
    }

    /// `1s send loginOK (queue request, id req)`.
    public var description: String {
      let options =
        (queue.flatMap { $0 == "default" ? nil : ["queue \($0)"] } ?? [])
        + (id.map { ["id \($0)"] } ?? [])
      let suffix = options.isEmpty ? "" : " (\(options.joined(separator: ", ")))"
      return "\(duration) send \(message)\(suffix)"
    }
  }
}
