import Millrace

/// Why a kind could not spawn a machine.
public enum SpawnFailure: Error, Hashable, Sendable {
  /// The kind has no such state.
  case unknownState(String)
  /// The runtime refused the machine, saying which of its limits it reached.
  case refused(SpawnError)
}

/// A kind of machine the daemon can spawn by name: from a machine file or compiled in.
///
/// A kind's behaviour is per kind, not per machine: registered with a host, it is bound once
/// (`bind`) to the host's runtime, which forms its operations specialized for its machine
/// type and routes the events of every machine of that type through one observer. A hosted
/// machine then costs no object or closure of its own.
public struct HostKind {
  /// The kind's name (`KINDS`, `SPAWN kind ...`).
  public let name: String
  /// Where it came from (a file path, or "built-in").
  public let source: String
  /// Its description as a machine file (JSON, v1 or v2), what `DESCRIBE kind` answers and
  /// `DOT kind` draws; nil for a kind registered without one.
  public let definition: String?
  /// Its names, for checking that machines stored or running under another definition fit
  /// it; nil when unknown (then every machine of the kind is taken to fit).
  public let schema: KindSchema?
  /// Binds the kind to `host`: forms its operations for the host's runtime, and has the host
  /// observe its machine type.
  let bind: (_ host: MachineHost) -> KindOperations

  /// A kind compiled into the daemon: machines of type `M`, starting in `initial`, with
  /// dependencies `extra`, read and printed through `codec`, started and finished as
  /// `lifecycle` says, described by `definition` (a machine file's JSON, which `DESCRIBE`
  /// answers as it is, so it should say what the code does); `schema` defaults to the
  /// codec's names and the queue layout.
  public static func code<M: Machine>(
    _ name: String, _ type: M.Type, initial: M.State, extra: M.Extra, codec: TextCodec<M>,
    queues: [QueuePolicy]? = nil, source: String = "built-in", definition: String? = nil,
    schema: KindSchema? = nil, lifecycle: KindLifecycle<M> = KindLifecycle()
  ) -> HostKind {
    let schema = schema ?? KindSchema(codec: codec, queueCount: (queues ?? M.Queue.policies).count)
    return HostKind(name: name, source: source, definition: definition, schema: schema) { host in
      host.observe(type)
      return KindOperations(
        type, runtime: host.runtime, initial: initial, extra: extra, queues: queues, codec: codec,
        lifecycle: lifecycle)
    }
  }
}
