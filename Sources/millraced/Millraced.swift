// millraced: hosts machines behind a RESP control socket (DESIGN §4).
import ArgumentParser
import Logging
import Millrace
import MillraceHost

extension Durability: ExpressibleByArgument {}
extension FullQueueBehavior: ExpressibleByArgument {}

@main
struct Millraced: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "millraced",
    abstract: "Host Millrace machines behind a Redis-protocol control socket.")

  @Option(help: "The Unix control socket (mode 0600).")
  var socket = DaemonConfiguration().socketPath

  @Option(help: "Also listen on TCP HOST:PORT (loopback unless HOST is given; needs --token).")
  var listen: String?

  @Option(help: "The directory of machine files.")
  var machines = DaemonConfiguration().machinesDirectory

  @Option(
    help: ArgumentHelp(
      "Print the kind as Graphviz DOT, from the machine files or the built-in kinds, and exit.",
      valueName: "kind"))
  var dot: String?

  @Option(
    help: ArgumentHelp(
      "Print the kind as a Mermaid state diagram, like --dot, and exit.", valueName: "kind"))
  var mermaid: String?

  @Option(
    help: ArgumentHelp(
      "Run as a node of the Redis Cluster this map file describes (docs/cluster.md); listens on "
        + "TCP at this node's address in the map unless --listen is given.",
      valueName: "file"))
  var clusterConfig: String?

  @Option(help: "The directory of the SQLite store.")
  var data = DaemonConfiguration().dataDirectory

  @Option(help: "none, batched or strict.")
  var durability = Durability.batched

  @Option(help: "trace, debug, info, notice, warning, error or critical.")
  var logLevel = "info"

  @Option(help: "Clients must send AUTH <token> first.")
  var token: String?

  @Option(help: "The most machines hosted at once.")
  var maxMachines = DaemonConfiguration().capacity.machines

  @Option(help: "The most pending timers (after / every effects) of all machines at once.")
  var maxTimers = DaemonConfiguration().capacity.timers

  @Option(
    help: "The most inputs queued at once across all machines (SEND waits or is busy beyond).")
  var maxInputs = DaemonConfiguration().capacity.inputs

  @Option(
    help: "The most effects in flight at once (timers, jobs, waiting ones) across all machines.")
  var maxEffects = DaemonConfiguration().capacity.effects

  @Flag(
    help: """
      At start, delete stored machines whose kind or state the machine files no longer have, \
      and timers whose input is gone, instead of refusing to start.
      """)
  var dropUnmappable = false

  @Option(help: "Inputs one machine can have queued before SEND waits or answers busy (1-65535).")
  var queueCapacity = DaemonConfiguration().capacity.inputsPerMachine

  @Option(help: "When a machine's queue is full: wait (pause the client) or busy (-ERR busy).")
  var whenFull = FullQueueBehavior.wait

  @Option(help: "Unread reply bytes a client may accumulate before it is cut off.")
  var clientBufferLimit = DaemonConfiguration().writeBufferLimit

  @Option(help: "The longest request frame accepted, in bytes.")
  var maxFrame = DaemonConfiguration().maxFrameLength

  func validate() throws {
    guard dot == nil || mermaid == nil else {
      throw ValidationError("--dot and --mermaid draw one kind each: give one of them")
    }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("unknown log level \(logLevel)")
    }
    for (name, value) in [
      ("--max-machines", maxMachines), ("--max-timers", maxTimers),
      ("--max-inputs", maxInputs), ("--max-effects", maxEffects),
      ("--queue-capacity", queueCapacity),
      ("--client-buffer-limit", clientBufferLimit), ("--max-frame", maxFrame),
    ] where value < 1 {
      throw ValidationError("\(name) must be at least 1")
    }
    for (name, value) in [("--max-inputs", maxInputs), ("--max-effects", maxEffects)]
    where value > RuntimeCapacity.maxPoolCells {
      throw ValidationError("\(name) must be at most \(RuntimeCapacity.maxPoolCells)")
    }
    guard queueCapacity <= RuntimeCapacity.maxInputs else {
      throw ValidationError("--queue-capacity must be at most \(RuntimeCapacity.maxInputs)")
    }
  }

  func run() throws {
    if let dot { return try printDrawing(of: dot, as: .dot) }
    if let mermaid { return try printDrawing(of: mermaid, as: .mermaid) }
    let level = Logger.Level(rawValue: logLevel) ?? .info
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    var configuration = DaemonConfiguration()
    configuration.socketPath = socket
    configuration.listen = listen
    configuration.clusterConfig = clusterConfig
    configuration.machinesDirectory = machines
    configuration.dataDirectory = data
    configuration.durability = durability
    configuration.token = token
    configuration.capacity.machines = maxMachines
    configuration.capacity.timers = maxTimers
    configuration.capacity.inputs = maxInputs
    configuration.capacity.effects = maxEffects
    configuration.dropUnmappable = dropUnmappable
    configuration.capacity.inputsPerMachine = queueCapacity
    configuration.writeBufferLimit = clientBufferLimit
    configuration.whenFull = whenFull
    configuration.maxFrameLength = maxFrame
    let logger = Logger(label: "millraced")
    let kept: Bool
    do {
      kept = try Daemon(configuration: configuration, logger: logger).run()
    } catch {
      logger.critical("cannot start: \(error)")
      throw ExitCode.failure
    }
    // Machines the store could not keep at the stop (the log says how many and why).
    if !kept { throw ExitCode.failure }
  }
}
