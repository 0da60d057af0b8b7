// store-bench: MachineStore alone, as the daemon drives it, at a million machines (issue 22).
//
//   store-bench fill DIR COUNT [--timers] [--turn N] [--rate R] [--crash]
//       a fresh store in DIR: COUNT machines `dev:0`… (kind `toggle`, state `off`; with
//       --timers each with one pending `after 30s`), saved in turns of N (default 1000), one
//       commit per turn (checkpoints start as they fall due and run on the store's worker), at
//       most R saves a second (default: as fast as the store takes them); then a clean close,
//       or with --crash an exit that closes nothing (what kill -9 leaves: the journals in the
//       page cache, a checkpoint cut off, SQLite's write-ahead log unmerged).
//   store-bench update DIR UPDATES [--rate R]
//       UPDATES saves of random machines of the store in DIR (the state flipped, timers kept
//       as they were), in turns of 1000, at most R a second; then a clean close.
//   store-bench states DIR UPDATES [--range R] [--turn N]
//       UPDATES state records (`saveState`, what a `SEND` that flips a toggle journals) of
//       random machines among the first R slots of the store in DIR (default: all), in turns
//       of N (default 300, a loaded daemon's commit), as fast as the store takes them; then a
//       clean close. Reports the CPU a record of the checkpoint worker (0 when no checkpoint
//       fell due before the close: 3,000,000 records to a million machines stay under one),
//       of the close, and of every thread.
//   store-bench read DIR
//       opens the store in DIR and streams every row (name, kind, state, timers).
//   store-bench size DIR
//       allocated bytes of the files in DIR (what `du -B1` counts).
//
// Times are wall-clock, from CLOCK_MONOTONIC, in milliseconds; one line of `key value` per
// figure.
import Foundation
import MillraceHost

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Seconds on the monotonic clock.
func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Seconds of CPU time this thread used (what another process's load does not add to).
func cpuNow() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Seconds of CPU time the whole process used (every thread: the loop's and the checkpoint
/// worker's).
func processCPU() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Nanoseconds since the Unix epoch.
/// CPU seconds of every thread of the process but the main one (Linux: `/proc/self/task`).
func otherThreadsCPU() -> Double {
  let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
  let me = String(getpid())  // the main thread's id, which calls this
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
  return tasks.filter { $0 != me }.reduce(0) { total, task in
    guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return total }
    // After "pid (comm) ": state is field 3, utime and stime fields 14 and 15.
    let fields = stat[stat.index(end, offsetBy: 2)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return total
    }
    return total + (user + system) / ticks
  }
}

func wallNanoseconds() -> Int64 {
  var time = timespec()
  clock_gettime(CLOCK_REALTIME, &time)
  return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

func report(_ key: String, _ value: Double, _ format: String = "%.3f") {
  print(key, String(format: format, value))
}

/// `String(format:)` without Foundation: one `%…f` or `%…d` conversion.
extension String {
  init(format: String, _ value: Double) {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, format, $0) }
    self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

func fail(_ message: String) -> Never {
  let line = Array("store-bench: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(2)
}

/// The durations of the commits of a run, in seconds, and of those that took a checkpoint
/// (wall-clock, and the thread's CPU time).
struct Commits {
  var all: [Double] = []
  var checkpointing: [Double] = []
  var checkpointingCPU: [Double] = []

  /// Runs `commit` and records how long it took, and whether it took a checkpoint.
  mutating func time(_ store: MachineStore, _ commit: () throws -> Void) rethrows {
    let before = store.checkpoints
    let start = now()
    let startCPU = cpuNow()
    try commit()
    let seconds = now() - start
    all.append(seconds)
    if store.checkpoints != before {
      checkpointing.append(seconds)
      checkpointingCPU.append(cpuNow() - startCPU)
    }
  }

  func summarize(_ prefix: String) {
    let sorted = all.sorted()
    func percentile(_ p: Double) -> Double {
      sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
    let checkpoints = checkpointing.sorted()
    print("\(prefix)_commits", all.count)
    print("\(prefix)_checkpoints", checkpoints.count)
    report("\(prefix)_commit_p50_ms", percentile(0.5) * 1e3)
    report("\(prefix)_commit_p99_ms", percentile(0.99) * 1e3)
    report("\(prefix)_commit_max_ms", (sorted.last ?? 0) * 1e3)
    let cpu = checkpointingCPU.sorted()
    for (name, values) in [("checkpoint", checkpoints), ("checkpoint_cpu", cpu)] {
      guard !values.isEmpty else { continue }
      report("\(prefix)_\(name)_p50_ms", values[values.count / 2] * 1e3)
      report(
        "\(prefix)_\(name)_p99_ms", values[min(values.count - 1, values.count * 99 / 100)] * 1e3)
      report("\(prefix)_\(name)_max_ms", values[values.count - 1] * 1e3)
    }
  }
}

/// The names `dev:0`… made up front: the daemon has its machines' names already.
func names(_ count: Int) -> [String] { (0..<count).map { "dev:\($0)" } }

func open(_ directory: String) -> MachineStore {
  do {
    return try MachineStore(directory: directory, durability: .batched)
  } catch {
    fail("open \(directory): \(error)")
  }
}

func timer(effect: Int, wall: Int64) -> StoredTimer {
  StoredTimer(
    input: "timeout", repeats: false, spanNanoseconds: 30_000_000_000,
    deadlineWallNanoseconds: wall + 29_000_000_000, remainingNanoseconds: 29_000_000_000,
    queue: 0, effectID: UInt64(effect + 1))
}

/// Sleeps until `done` saves are due at `rate` saves per second since `start` (no pacing for
/// a rate of 0).
func pace(_ done: Int, rate: Int, since start: Double) {
  guard rate > 0 else { return }
  let wait = start + Double(done) / Double(rate) - now()
  guard wait > 0 else { return }
  var time = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
  nanosleep(&time, nil)
}

/// Closes `store` cleanly (before `close()` existed: checkpoints it) and reports how long it
/// took, wall-clock and CPU, as `<key>_ms` and `<key>_cpu_ms`.
func close(_ store: MachineStore, as key: String) throws {
  let start = now()
  let startCPU = processCPU()
  #if STORE_BENCH_OLD_API
    try store.checkpoint()
  #else
    try store.close()
  #endif
  report("\(key)_ms", (now() - start) * 1e3)
  report("\(key)_cpu_ms", (processCPU() - startCPU) * 1e3)
}

func fill(
  _ directory: String, count: Int, timers: Bool, turn: Int, rate: Int, crash: Bool
) throws {
  mkdir(directory, 0o700)
  let all = names(count)
  let wall = wallNanoseconds()
  let store = open(directory)
  var commits = Commits()
  let start = now()
  let startCPU = processCPU()
  var next = 0
  while next < count {
    let end = min(count, next + turn)
    for index in next..<end {
      let machine = StoredMachine(
        name: all[index], kind: "toggle", state: "off",
        timers: timers ? [timer(effect: index, wall: wall)] : [])
      // By slot, as the daemon saves (its runtime index).
      #if STORE_BENCH_OLD_API
        try store.save(machine)
      #else
        try store.save(machine, slot: UInt32(index))
      #endif
    }
    try commits.time(store) { try store.commit() }
    next = end
    pace(next, rate: rate, since: start)
  }
  let elapsed = now() - start
  report("fill_ms", elapsed * 1e3)
  report("fill_cpu_ms", (processCPU() - startCPU) * 1e3)
  report("fill_saves_per_s", Double(count) / elapsed, "%.0f")
  commits.summarize("fill")
  if crash {
    // As kill -9 leaves it: nothing closed, nothing flushed beyond what the commits did
    // (but this report).
    fflush(nil)
    _exit(0)
  }
  try close(store, as: "close")
}

func update(_ directory: String, updates: Int, rate: Int) throws {
  let store = open(directory)
  // The rows as they are (kind, state, timers), then random ones saved again, flipped.
  var rows: [StoredMachine] = []
  var slots: [UInt32] = []
  #if STORE_BENCH_OLD_API
    rows = try store.loadAll()
  #else
    try store.forEach {
      rows.append($0.machine)
      slots.append($0.slot)
    }
  #endif
  guard !rows.isEmpty else { fail("update: no machines in \(directory)") }
  var generator = SystemRandomNumberGenerator()
  var commits = Commits()
  let start = now()
  let startCPU = processCPU()
  var done = 0
  while done < updates {
    for _ in 0..<min(1000, updates - done) {
      let index = Int.random(in: 0..<rows.count, using: &generator)
      rows[index].state = rows[index].state == "off" ? "on" : "off"
      #if STORE_BENCH_OLD_API
        try store.save(rows[index])
      #else
        try store.save(rows[index], slot: slots[index])
      #endif
      done += 1
    }
    try commits.time(store) { try store.commit() }
    pace(done, rate: rate, since: start)
  }
  let elapsed = now() - start
  report("update_ms", elapsed * 1e3)
  report("update_saves_per_s", Double(updates) / elapsed, "%.0f")
  commits.summarize("update")
  // The checkpoint worker's share, before the close ends it.
  report("update_worker_cpu_us_per_save", otherThreadsCPU() * 1e6 / Double(updates))
  try close(store, as: "update_close")
  // Every thread's: the saves and commits, and the checkpoints of the worker and the close.
  report("update_cpu_us_per_save", (processCPU() - startCPU) * 1e6 / Double(updates))
}

func states(_ directory: String, updates: Int, range: Int?, turn: Int) throws {
  let store = open(directory)
  var slots: [UInt32] = []
  var flipped: [Bool] = []
  try store.forEach { row in
    slots.append(row.slot)
    flipped.append(false)
  }
  guard !slots.isEmpty else { fail("states: no machines in \(directory)") }
  guard turn > 0, updates > 0 else { fail("states: --turn and UPDATES must be above 0") }
  let count = min(range ?? slots.count, slots.count)
  // A turn's machines drawn in one call (`SystemRandomNumberGenerator` makes a system call a
  // number, which would be most of the journaling's time measured).
  var picks = [UInt32](repeating: 0, count: turn)
  let start = now()
  let startCPU = processCPU()
  let mainStart = cpuNow()
  var done = 0
  while done < updates {
    picks.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
    for pick in picks.prefix(min(turn, updates - done)) {
      let index = Int(pick % UInt32(count))
      flipped[index].toggle()
      store.saveState(slot: slots[index], state: flipped[index] ? "on" : "off")
      done += 1
    }
    try store.commit()
  }
  let elapsed = now() - start
  report("states_ms", elapsed * 1e3)
  report("states_per_s", Double(updates) / elapsed, "%.0f")
  // Checkpoint workers are threads of their own that end with their checkpoint: what is not
  // this thread's is theirs.
  let main = cpuNow() - mainStart
  report("states_journal_cpu_ns_per_record", main * 1e9 / Double(updates))
  report(
    "states_worker_cpu_ns_per_record",
    (processCPU() - startCPU - main) * 1e9 / Double(updates))
  let closeCPU = processCPU()
  try close(store, as: "states_close")
  report("states_close_cpu_ns_per_record", (processCPU() - closeCPU) * 1e9 / Double(updates))
  report("states_cpu_ns_per_record", (processCPU() - startCPU) * 1e9 / Double(updates))
}

func read(_ directory: String) throws {
  let start = now()
  let store = open(directory)
  let opened = now()
  var rows = 0
  var timers = 0
  var bytes = 0
  #if STORE_BENCH_OLD_API
    for machine in try store.loadAll() {
      rows += 1
      timers += machine.timers.count
      bytes += machine.name.utf8.count + machine.kind.utf8.count + machine.state.utf8.count
    }
  #else
    try store.forEach { row in
      rows += 1
      bytes += row.name.count + row.kind.count + row.state.count
      for _ in row.timers { timers += 1 }
    }
  #endif
  let end = now()
  #if !STORE_BENCH_OLD_API
    let counted = try store.count()
    report("count_ms", (now() - end) * 1e3)
    guard counted == rows else { fail("count \(counted), rows \(rows)") }
  #endif
  report("open_ms", (opened - start) * 1e3)
  report("read_ms", (end - opened) * 1e3)
  report("open_read_ms", (end - start) * 1e3)
  print("rows", rows)
  print("timers", timers)
  print("text_bytes", bytes)
}

/// Allocated bytes of the regular files in `directory` (st_blocks × 512, as `du -B1`), and the
/// directory's own blocks.
func size(_ directory: String) -> Int {
  guard let stream = opendir(directory) else { fail("opendir \(directory)") }
  defer { closedir(stream) }
  var info = stat()
  var total = stat(directory, &info) == 0 ? Int(info.st_blocks) * 512 : 0
  while let entry = readdir(stream) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    guard name != ".", name != ".." else { continue }
    if stat(directory + "/" + name, &info) == 0 { total += Int(info.st_blocks) * 512 }
  }
  return total
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
  fail("usage: store-bench fill|update|states|read|size DIR …")
}
let directory = arguments[1]

/// The number after `flag` among the arguments, if any.
func option(_ flag: String) -> Int? {
  guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else {
    return nil
  }
  return Int(arguments[index + 1])
}
do {
  switch arguments[0] {
  case "fill":
    guard arguments.count >= 3, let count = Int(arguments[2]) else { fail("fill DIR COUNT") }
    try fill(
      directory, count: count, timers: arguments.contains("--timers"),
      turn: option("--turn") ?? 1000, rate: option("--rate") ?? 0,
      crash: arguments.contains("--crash"))
  case "update":
    guard arguments.count >= 3, let updates = Int(arguments[2]) else { fail("update DIR N") }
    try update(directory, updates: updates, rate: option("--rate") ?? 0)
  case "states":
    guard arguments.count >= 3, let updates = Int(arguments[2]) else { fail("states DIR N") }
    try states(
      directory, updates: updates, range: option("--range"), turn: option("--turn") ?? 300)
  case "read":
    try read(directory)
  case "size":
    print("bytes", size(directory))
  default:
    fail("unknown command \(arguments[0])")
  }
} catch {
  fail("\(error)")
}
