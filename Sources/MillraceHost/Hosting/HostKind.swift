import Millrace

/// Why a kind could not spawn a machine.
public enum SpawnFailure: Error, Hashable, Sendable {
  /// The kind has no such state.
  case unknownState(String)
  /// The runtime has no free machine slot.
  case full
}

/// A kind of machine the daemon can spawn by name: from a machine file or compiled in.
public struct HostKind {
  /// The kind's name (`KINDS`, `SPAWN kind ...`).
  public let name: String
  /// Where it came from (a file path, or "built-in").
  public let source: String
  /// Graphviz DOT of its transitions, when it has a table.
  public let dot: String?
  /// Its names, for checking that machines stored or running under another definition fit
  /// it; nil when unknown (then every machine of the kind is taken to fit).
  public let schema: KindSchema?
  /// Spawns a machine named `name` in `state` (the initial state when nil); `events` receives
  /// its replies and outputs as text.
  public let spawn:
    (
      _ runtime: Runtime, _ name: String, _ state: String?,
      _ events: @escaping (any HostedMachine, HostedEvent) -> Void
    ) -> Result<any HostedMachine, SpawnFailure>

  /// Creates a kind from its spawn function.
  public init(
    name: String, source: String, dot: String? = nil, schema: KindSchema? = nil,
    spawn:
      @escaping (
        Runtime, String, String?, @escaping (any HostedMachine, HostedEvent) -> Void
      ) -> Result<any HostedMachine, SpawnFailure>
  ) {
    self.name = name
    self.source = source
    self.dot = dot
    self.schema = schema
    self.spawn = spawn
  }

  /// A kind compiled into the daemon: machines of type `M`, starting in `initial`, with
  /// dependencies `extra`, read and printed through `codec`; `schema` defaults to the
  /// codec's names and the queue layout.
  public static func code<M: Machine>(
    _ name: String, _ type: M.Type, initial: M.State, extra: M.Extra, codec: TextCodec<M>,
    queues: [QueuePolicy]? = nil, source: String = "built-in", dot: String? = nil,
    schema: KindSchema? = nil
  ) -> HostKind {
    let schema = schema ?? KindSchema(codec: codec, queueCount: (queues ?? M.queues).count)
    return HostKind(name: name, source: source, dot: dot, schema: schema) {
      runtime, machineName, stateText, events in
      var state = initial
      if let stateText {
        guard let parsed = codec.parseState(stateText) else {
          return .failure(.unknownState(stateText))
        }
        state = parsed
      }
      guard
        let handle = runtime.spawn(type, state: state, extra: extra, queues: queues ?? M.queues)
      else { return .failure(.full) }
      let machine = TextMachine(
        name: machineName, kind: name, handle: handle, runtime: runtime, codec: codec,
        events: { machine, event in events(machine, event) })
      return .success(machine)
    }
  }
}
