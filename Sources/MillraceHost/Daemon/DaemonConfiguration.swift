import Millrace

/// How `millraced` runs (DESIGN §4.3); the defaults are the design's.
public struct DaemonConfiguration: Sendable {
  /// The Unix control socket (created with mode 0600).
  public var socketPath = "./.millrace/millraced.sock"
  /// A TCP address to listen on as well (`HOST:PORT`, or `PORT` for loopback).
  public var listen: String?
  /// The directory of machine files.
  public var machinesDirectory = "./examples/machines"
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
  /// The runtime's fixed capacities.
  public var capacity = RuntimeCapacity(
    machines: 16_384, inputsPerMachine: 64, effectsPerMachine: 16, timers: 65_536,
    effectsPerResolution: 16)

  /// The defaults.
  public init() {}
}
