import CHeap
import Millrace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The text of `INFO` in Redis's format: `# Section` headers and `field:value` lines ending in
/// CRLF, sections separated by an empty line. Field names are Redis's where Redis has the
/// field (so that `redis-cli --stat` and exporters read them), and the daemon's own in
/// `# Machines` and `# Millrace`.
struct InfoReport {
  /// Every section, in order; `default` leaves out `commandstats`, as Redis does.
  static let sections = [
    "server", "clients", "memory", "persistence", "stats", "replication", "cpu", "commandstats",
    "cluster", "keyspace", "machines", "millrace",
  ]

  /// The sections a request names (`INFO`, `INFO default`, `INFO all`, `INFO clients memory`);
  /// unknown names select nothing, as in Redis.
  static func selection(_ requested: [String]) -> [String] {
    let names = requested.map { $0.lowercased() }
    if names.isEmpty || names.contains("default") {
      return sections.filter { $0 != "commandstats" || names.contains("commandstats") }
    }
    if names.contains("all") || names.contains("everything") { return sections }
    return sections.filter(names.contains)
  }

  /// The report of `sections` for `server`.
  static func text(_ sections: [String], of server: ControlServer) -> String {
    sections.compactMap { name -> String? in
      // `# Cluster` is there on a cluster node only (a daemon without one answers as before).
      if name == "cluster" && server.cluster == nil { return nil }
      let fields = self.fields(name, of: server)
      let title = name == "cpu" ? "CPU" : name.prefix(1).uppercased() + name.dropFirst()
      return "# \(title)\r\n" + fields.map { "\($0.0):\($0.1)\r\n" }.joined()
    }.joined(separator: "\r\n")
  }

  private static func fields(_ section: String, of server: ControlServer) -> [(String, String)] {
    let host = server.host
    let runtime = host.runtime.statistics
    let uptime = (server.milliseconds() &- server.startedAt) / 1000
    switch section {
    case "server":
      return [
        ("redis_version", ControlServer.redisCompatibleVersion),
        ("millrace_version", server.facts.version),
        ("redis_mode", server.cluster == nil ? "standalone" : "cluster"),
        ("os", Self.operatingSystem), ("arch_bits", "\(Int.bitWidth)"),
        ("process_id", "\(server.facts.processID)"), ("tcp_port", "\(server.facts.tcpPort)"),
        ("uptime_in_seconds", "\(uptime)"), ("uptime_in_days", "\(uptime / 86_400)"),
        ("executable", server.facts.executable), ("config_file", ""),
      ]
    case "clients":
      return [
        ("connected_clients", "\(server.sessions.count)"),
        ("maxclients", "\(server.facts.maxClients)"),
        ("blocked_clients", "\(server.blockedCount)"),
        ("pubsub_clients", "\(server.sessions.values.filter { $0.subscriptionCount > 0 }.count)"),
      ]
    case "memory":
      let heap = UInt64(millrace_heap_bytes_in_use())
      let resident = Self.residentBytes()
      server.memoryPeak = max(server.memoryPeak, heap)
      return [
        ("used_memory", "\(heap)"), ("used_memory_human", Self.human(heap)),
        ("used_memory_rss", "\(resident)"), ("used_memory_rss_human", Self.human(resident)),
        ("used_memory_peak", "\(server.memoryPeak)"),
        ("used_memory_peak_human", Self.human(server.memoryPeak)),
        ("maxmemory", "0"), ("maxmemory_human", "0B"), ("maxmemory_policy", "noeviction"),
        (
          "mem_fragmentation_ratio",
          heap == 0 ? "0.00" : Self.decimal(Double(resident) / Double(heap))
        ),
        ("mem_allocator", "libc"),
      ]
    case "persistence":
      let failed = host.storeFailure != nil
      return [
        ("loading", "0"), ("async_loading", "0"),
        ("rdb_changes_since_last_save", "0"), ("rdb_bgsave_in_progress", "0"),
        ("rdb_last_bgsave_status", failed ? "err" : "ok"),
        ("aof_enabled", host.durability == .none ? "0" : "1"), ("aof_rewrite_in_progress", "0"),
        ("aof_last_bgrewrite_status", "ok"), ("aof_last_write_status", failed ? "err" : "ok"),
      ]
    case "stats":
      return [
        ("total_connections_received", "\(server.connectionsReceived)"),
        ("total_commands_processed", "\(server.commandsProcessed)"),
        ("instantaneous_ops_per_sec", "0"),
        ("rejected_connections", "\(server.rejectedConnections())"),
        ("expired_keys", "0"), ("evicted_keys", "0"), ("keyspace_hits", "0"),
        ("keyspace_misses", "0"),
        ("pubsub_channels", "\(server.subscriptions.channels.count)"),
        ("pubsub_patterns", "\(server.subscriptions.patterns.count)"),
      ]
    case "cluster":
      return [("cluster_enabled", "1")]
    case "replication":
      return [("role", "master"), ("connected_slaves", "0")]
    case "cpu":
      var usage = rusage()
      getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
      func seconds(_ time: timeval) -> String {
        Self.decimal(Double(time.tv_sec) + Double(time.tv_usec) / 1e6, places: 6)
      }
      return [
        ("used_cpu_sys", seconds(usage.ru_stime)), ("used_cpu_user", seconds(usage.ru_utime)),
      ]
    case "commandstats":
      return zip(server.table.commands, server.callsByCommand).filter { $0.1 > 0 }.map {
        (
          "cmdstat_\($0.0.name)",
          "calls=\($0.1),usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0"
        )
      }
    case "keyspace":
      guard host.machineCount > 0 else { return [] }
      return [("db0", "keys=\(host.machineCount),expires=0,avg_ttl=0")]
    case "machines":
      return host.kindNames.map { ($0, "machines=\(host.machineCount(kind: $0))") }
    case "millrace":
      return [
        ("machines", "\(host.machineCount)"),
        ("machines_high_water", "\(runtime.machinesHighWater)"),
        ("machines_capacity", "\(host.runtime.capacity.machines)"),
        ("spawns_refused", "\(runtime.spawnsRefused)"),
        ("inputs_dispatched", "\(runtime.dispatched)"),
        ("timers", "\(runtime.timers)"),
        ("timers_high_water", "\(runtime.timersHighWater)"),
        ("timers_capacity", "\(host.runtime.capacity.timers)"),
        ("diagnostics", "\(runtime.diagnostics)"),
        ("overflow_timers", "\(host.overflowCounts.timers)"),
        ("overflow_effects", "\(host.overflowCounts.effects)"),
        ("overflow_inputs", "\(host.overflowCounts.inputs)"),
        ("overflow_recorded", "\(host.overflowCounts.recorded)"),
        ("subscriptions", "\(server.subscriptions.count)"),
        ("clients_waiting_for_room", "\(server.blockedCount)"),
        ("durability", host.durability.rawValue),
        ("commits", "\(host.commits)"),
        ("commit_failures", "\(host.commitFailures)"),
        ("store_checkpoints", "\(host.storeCheckpoints)"),
        (
          "store_status",
          host.durability == .none ? "none" : host.storeFailure == nil ? "ok" : "failed"
        ),
        ("store_failure", host.storeFailure?.description ?? ""),
        ("store_unstored_changes", "\(host.unstoredChanges)"),
      ]
    default:
      return []
    }
  }

  private static var operatingSystem: String {
    var name = utsname()
    uname(&name)
    func text<T>(_ field: T) -> String {
      withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    return "\(text(name.sysname)) \(text(name.release)) \(text(name.machine))"
  }

  /// Resident set size from `/proc/self/statm` (0 where there is none).
  private static func residentBytes() -> UInt64 {
    let descriptor = open("/proc/self/statm", O_RDONLY)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 128)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return 0 }
    // "size resident shared ...", in pages.
    let fields = buffer.prefix(count).split(separator: UInt8(ascii: " "))
    guard fields.count > 1, let pages = UInt64(String(decoding: fields[1], as: UTF8.self)) else {
      return 0
    }
    return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// `1.50M`, as Redis prints sizes.
  static func human(_ bytes: UInt64) -> String {
    let units: [(Double, String)] = [(1_073_741_824, "G"), (1_048_576, "M"), (1024, "K")]
    for (size, unit) in units where Double(bytes) >= size {
      return decimal(Double(bytes) / size) + unit
    }
    return "\(bytes)B"
  }

  /// `value` with `places` decimals.
  static func decimal(_ value: Double, places: Int = 2) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(scaled % Int(scale))
    return "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
  }
}
