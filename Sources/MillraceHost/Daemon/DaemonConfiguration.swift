import Millrace

/// How `millraced` runs (DESIGN §4.3); the defaults are the design's.
public struct DaemonConfiguration: Sendable {
  /// The Unix control socket (created with mode 0600).
  public var socketPath = "./.millrace/millraced.sock"
  /// A TCP address to listen on as well (`HOST:PORT`, or `PORT` for loopback).
  public var listen: String?
  /// The directory of machine files.
  public var machinesDirectory = "./examples/machines"
  /// The cluster map file (docs/cluster.md): with one, the daemon is a node of that cluster
  /// and listens on TCP where the map says (unless `listen` is given). Nil: a daemon on its
  /// own, which refuses `CLUSTER ...` as a Redis without cluster support does.
  public var clusterConfig: String?
  /// The directory of the SQLite store.
  public var dataDirectory = "./.millrace/data"
  /// How changes are kept.
  public var durability = Durability.batched
  /// The token clients must `AUTH` with; required for a non-loopback `listen`.
  public var token: String?
  /// The longest request frame accepted (bytes).
  public var maxFrameLength = 64 * 1024
  /// Reply bytes a client may leave unread before it is cut off (a slow subscriber).
  public var writeBufferLimit = 4 << 20
  /// The most connections served at once.
  public var maxConnections = 4096
  /// What `SEND` does when the machine's queue is full.
  public var whenFull = FullQueueBehavior.wait
  /// Whether a start deletes stored machines whose kind or state the machine files no longer
  /// have (and timers whose input is gone) instead of refusing to start.
  public var dropUnmappable = false
  /// The runtime's fixed capacities: a million machines and a million pending timers at the
  /// defaults (issue 22). Every table and pool is reserved at start and written as it fills
  /// (the machine records, the directory's entries, the timer heap, the input and effect
  /// pools), so these numbers cost address space (a few hundred MB at the defaults), not
  /// memory: an idle daemon's RSS grows with the machines, timers, queued inputs and
  /// in-flight effects it holds, not with its limits.
  ///
  /// - `machines`: 1,048,576 hosted at once (`--max-machines`).
  /// - `timers`: 1,048,576 pending `after` / `every` effects of all machines
  ///   (`--max-timers`).
  /// - `inputsPerMachine`: 64 queued per machine before `SEND` waits or answers busy
  ///   (`--queue-capacity`); `inputs`: 1,048,576 queued at once across all machines
  ///   (`--max-inputs`).
  /// - `effectsPerMachine`: 16 in flight per machine; `effects`: 2,097,152 in flight at once
  ///   across all machines (`--max-effects`): two per machine, so that every machine can
  ///   hold a timer while others run more.
  public var capacity = RuntimeCapacity(
    machines: 1 << 20, inputsPerMachine: 64, effectsPerMachine: 16, timers: 1 << 20,
    effectsPerResolution: 16, inputs: 1 << 20, effects: 2 << 20)

  /// The defaults.
  public init() {}
}

/// What the daemon does with a `SEND` that finds its machine's queue full.
public enum FullQueueBehavior: String, Sendable, CaseIterable {
  /// Back-pressure (DESIGN §3): the connection stops reading and the `SEND` is retried at the
  /// end of every turn until the machine has room; nothing is lost and replies stay in order.
  case wait
  /// Answer `-ERR busy` at once; nothing changes (DESIGN §4.1).
  case busy
}
