import CHeap
import Foundation
import Logging
import Millrace
import MillraceUV

/// The `millraced` daemon: hosts the kinds of a machines directory (and built-in kinds)
/// behind the control socket (DESIGN §4).
///
/// Lifecycle (§4.5): start-up fails with a non-zero exit on a bad machine file or an unusable
/// socket or store; SIGTERM / SIGINT stop accepting, commit (or rebuild a store found unusable
/// while running, `StoreRebuild`), close everything and return whether every machine was kept;
/// SIGHUP reloads the machine files, keeping the old definitions when a file is bad, and the
/// cluster map of a cluster node, keeping the old map when the new one is refused. With
/// `NOTIFY_SOCKET` set it sends `READY=1`, `RELOADING=1` / `READY=1` and `STOPPING=1`.
public final class Daemon {
  /// Why the daemon could not start.
  public struct StartupError: Error, CustomStringConvertible {
    /// What went wrong, one problem per line.
    public var description: String
  }

  let configuration: DaemonConfiguration
  var logger: Logger
  private let builtInKinds: [HostKind]
  private let notifier: SystemdNotifier

  /// Prepares a daemon; `builtInKinds` are compiled-in kinds served besides the files.
  public init(
    configuration: DaemonConfiguration, logger: Logger, builtInKinds: [HostKind] = [Counter.kind],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.configuration = configuration
    self.logger = logger
    self.builtInKinds = builtInKinds
    self.notifier = SystemdNotifier(environment: environment)
  }

  /// Loads the machine files as kinds, or throws every problem.
  private func loadKinds() throws(StartupError) -> [HostKind] {
    do {
      let catalog = try KindCatalog(directory: configuration.machinesDirectory)
      for warning in catalog.warnings { logger.warning("\(warning)") }
      return zip(catalog.kinds, catalog.texts).map { HostKind.file($0, json: $1) }
    } catch {
      throw StartupError(description: error.description)
    }
  }

  /// Runs until SIGTERM or SIGINT; throws when start-up fails. Returns whether every machine
  /// was kept at the stop (false: the store could neither take them nor be rebuilt, and the
  /// log says how many were lost and why).
  @discardableResult
  public func run() throws(StartupError) -> Bool {
    Self.unblockSignals()
    Self.ignoreFileSizeLimitSignal()
    HeapRelease.configure()
    Self.disableTransparentHugePages()
    let config = configuration
    let clusterMap = try loadClusterMap()
    let listen = config.listen ?? clusterMap.map { Self.listenAddress(of: $0.myselfNode) }
    if let listen, !isLoopback(listen), config.token == nil {
      throw StartupError(
        description: "--listen \(listen) is not loopback: it requires --token (clients AUTH first)")
    }
    let fileKinds = try loadKinds()
    let store = try openStore()
    if let note = store?.recoveryNote { logger.notice("store: \(note)") }
    store?.onFailure = { [logger] failure in
      logger.error(
        """
        store unusable: \(failure); SPAWN, SEND and KILL are refused from now on, reads go on; \
        a clean stop (SIGTERM) rebuilds the store from memory
        """)
    }
    store?.onCheckpointFailure = { [logger] error in
      logger.error("store checkpoint failed (changes stay in the journal): \(error)")
    }
    let loop: EventLoop
    do {
      loop = try EventLoop()
    } catch {
      throw StartupError(description: "event loop: \(error)")
    }
    let monitor = store.map { StoreMonitor(store: $0, loop: loop) }
    if let problem = monitor?.watchProblem {
      logger.warning("store: the data directory is checked once a second only (\(problem))")
    }
    let runtime = Runtime(capacity: config.capacity)
    let driver = RuntimeLoop(loop: loop, runtime: runtime)
    let host = MachineHost(runtime: runtime, store: store, logger: logger) {
      HostClock(monotonic: driver.now, wallNanoseconds: Self.wallClockNanoseconds())
    }
    host.register(builtInKinds + fileKinds)
    if clusterMap != nil { host.trackSlots() }
    do {
      for note in try host.restore(droppingUnmappable: config.dropUnmappable) {
        logger.warning("restore: \(note)")
      }
    } catch {
      driver.close()
      try? loop.close()
      throw StartupError(description: "restore: \(error)")
    }
    logger.info("restored \(host.machineCount) machines; kinds: \(host.kindNames)")
    let cluster: Cluster?
    do {
      cluster = try startCluster(clusterMap, host: host)
    } catch {
      driver.close()
      try? loop.close()
      throw error
    }
    var servers: [StreamServer] = []
    var facts = ControlServer.Facts()
    facts.version = Self.version
    facts.processID = getpid()
    facts.socketPath = config.socketPath
    facts.dataDirectory = config.durability == .none ? "" : config.dataDirectory
    facts.maxClients = config.maxConnections
    facts.executable = CommandLine.arguments.first ?? ""
    let control = ControlServer(
      host: host, token: config.token, whenFull: config.whenFull, facts: facts, cluster: cluster,
      milliseconds: { loop.cachedMilliseconds })
    control.rejectedConnections = { servers.reduce(0) { $0 + $1.refusedCount } }
    // A read's SENDs are resolved while their machines' lines are in the cache (about a
    // third more SENDs a second, pipelined; Bench/README.md).
    control.dispatchPosted = { driver.dispatchPosted() }
    // What a burst of clients used (request and reply buffers, the turns' bookkeeping) and
    // removed machines are freed, but glibc keeps freed heap pages mapped: give them back to
    // the system, once a second at most, after connections closed or after many machines
    // were removed (`trimAfterRemovals`; a few kills leave little to give back, and their
    // memory serves the next spawns).
    var removedSinceTrim = 0
    let trimmer = LoopTimer(loop: loop) { _ in
      removedSinceTrim = 0
      HeapRelease.inBackground(HeapRelease.Blocks(), thenTrim: true)
    }
    driver.onTurnEnd = {
      control.retryBlocked()
      let outcome = host.finishTurn()
      control.turnEnded(outcome)
      // Only a turn that removed machines touches the captured counter (each access to it is
      // checked for exclusivity at run time: about 110 instructions).
      guard outcome.removedMachines > 0 else { return }
      removedSinceTrim += outcome.removedMachines
      if removedSinceTrim >= Self.trimAfterRemovals && !trimmer.isActive {
        trimmer.start(after: .seconds(1))
      }
    }
    var signals: [SignalWatcher] = []
    let stop: (SignalWatcher.Signal) -> Void = { [logger] signal in
      logger.info("\(signal): stopping")
      self.notifier.notify("STOPPING=1")
      for server in servers { server.close() }
      control.turnEnded(host.finishTurn())
      loop.stop()
    }
    let reload: (SignalWatcher.Signal) -> Void = { [self] _ in
      notifier.notify("RELOADING=1")
      do {
        let kinds = try loadKinds()
        for note in try host.replaceFileKinds(with: kinds) { logger.notice("reload: \(note)") }
        logger.info("reloaded machine files; kinds: \(host.kindNames)")
      } catch {
        logger.error("reload refused, keeping the old definitions:\n\(error)")
      }
      Self.reloadClusterMap(control, path: cluster?.path, logger: logger)
      notifier.notify("READY=1")
    }
    do {
      try FileManager.default.createDirectory(
        atPath: (config.socketPath as NSString).deletingLastPathComponent.isEmpty
          ? "." : (config.socketPath as NSString).deletingLastPathComponent,
        withIntermediateDirectories: true, attributes: Self.privateDirectory)
      var addresses = [ListenAddress.unix(path: config.socketPath)]
      if let listen { addresses.append(try ListenAddress(parsing: listen)) }
      for address in addresses {
        var serverConfiguration = StreamServer.Configuration(framing: .resp)
        serverConfiguration.maxFrameLength = config.maxFrameLength
        serverConfiguration.writeBufferLimit = config.writeBufferLimit
        serverConfiguration.maxConnections = config.maxConnections
        let server = try StreamServer(
          loop: loop, address: address, configuration: serverConfiguration,
          // Every connection's requests go to its session (`ControlServer.open`).
          onFrame: { _, _ in },
          onFramingError: { control.framingFailed($0, $1) },
          onConnect: { control.open($0) },
          onClose: { connection, _ in
            control.closed(connection)
            if !trimmer.isActive { trimmer.start(after: .seconds(1)) }
          })
        servers.append(server)
        if case .tcp(_, let port) = server.address { control.facts.tcpPort = Int(port) }
        logger.info("listening on \(server.address)")
      }
      signals.append(try SignalWatcher(loop: loop, signal: .terminate, handler: stop))
      signals.append(try SignalWatcher(loop: loop, signal: .interrupt, handler: stop))
      signals.append(try SignalWatcher(loop: loop, signal: .hangup, handler: reload))
    } catch {
      for server in servers { server.close() }
      for signal in signals { signal.close() }
      monitor?.close()
      trimmer.close()
      driver.close()
      try? loop.close()
      throw StartupError(description: "listen: \(error)")
    }

    notifier.notify("READY=1")
    logger.info("serving (durability \(config.durability.rawValue))")
    loop.run()

    let closing = SharedCPU.monotonicNanoseconds()
    let kept = host.closeStore()
    let storeClosed = (SharedCPU.monotonicNanoseconds() - closing) / 1_000_000
    // The machines end with the process. Removing a million one by one (each timer taken out
    // of the heap, each block destroyed) took most of a clean stop's second, and nothing
    // needs that memory back: the host and its runtime are kept, reachable (so a leak
    // checker has nothing to report), until the process exits.
    Self.keptUntilExit.append(host)
    for signal in signals { signal.close() }
    monitor?.close()
    trimmer.close()
    driver.close()
    do {
      try loop.close()
    } catch {
      logger.error("closing the loop: \(error)")
    }
    logger.info("stopped (the store closed in \(storeClosed) ms)")
    return kept
  }

  /// Opens the store, after proving that its directory takes files (so an unusable one is one
  /// sentence that names it); nil with durability `none`.
  private func openStore() throws(StartupError) -> MachineStore? {
    guard configuration.durability != .none else { return nil }
    do {
      try DataDirectory.prepare(configuration.dataDirectory)
    } catch {
      throw StartupError(description: error.description)
    }
    do {
      return try MachineStore(
        directory: configuration.dataDirectory, durability: configuration.durability)
    } catch {
      throw StartupError(description: "store: \(error)")
    }
  }

  /// Whether `--listen` names a loopback address: `localhost`, an IPv4 literal in 127.0.0.0/8
  /// or `::1`. Any other name counts as exposed, since it may resolve anywhere (a text test
  /// such as "starts with 127." let `127.example.com` through without a token).
  private func isLoopback(_ listen: String) -> Bool {
    guard case .tcp(let host, _)? = try? ListenAddress(parsing: listen) else { return true }
    if host == "localhost" { return true }
    var v4 = in_addr()
    if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, host, &v6) == 1 {
      return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
    }
    return false
  }

  /// Directories the daemon creates (the socket's, the store's) are its owner's only, like
  /// the socket: the store holds every machine's name and state.
  static var privateDirectory: [FileAttributeKey: Any] { [.posixPermissions: 0o700] }

  /// A daemon must not depend on the signal mask it was started with (a parent thread may
  /// block SIGTERM, and children inherit the mask): unblock everything before the loop's
  /// signal watchers are installed.
  static func unblockSignals() {
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
  }

  /// A write past the file size limit (`ulimit -f`) must fail with `EFBIG`, as one on a full
  /// disk fails with `ENOSPC`, not kill the daemon with `SIGXFSZ`: the store then fails the
  /// commit, answers `-ERR internal` and keeps serving.
  static func ignoreFileSizeLimitSignal() {
    signal(SIGXFSZ, SIG_IGN)
  }

  /// Turns transparent huge pages off for the whole process, before its tables are
  /// allocated, so that the loop never takes a page fault that zeroes 2 MiB. Where the system
  /// gives them to every mapping (`/sys/kernel/mm/transparent_hugepage/enabled` set to
  /// `always`), the first write to each 2 MiB of a growing table (the runtime's records, the
  /// directory, the timer heap) would fault in a whole huge page on the loop thread, which
  /// takes milliseconds where the host backs memory on first use (docs/reliability.md, "Load").
  /// Where the kernel has no such option nothing changes.
  static func disableTransparentHugePages() {
    _ = millrace_disable_transparent_huge_pages()
  }

  /// What a stopped daemon leaves to the end of the process (see the end of `run()`).
  nonisolated(unsafe) private static var keptUntilExit: [AnyObject] = []

  /// Machines removed since the last trim that make the next one due.
  static let trimAfterRemovals = 10_000

  /// Millrace's version, as `HELLO` and `INFO` report it.
  public static let version = "0.2.0"

  static func wallClockNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
  }
}
