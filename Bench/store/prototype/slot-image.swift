// A prototype, not the store: the checkpoint of an image indexed by store slot, as
// docs/store.md ("Next: an image indexed by store slot") designs it, timed against today's
// checkpoint of the same work (`store-bench update`, `update_close_cpu_ms`).
//
// The image holds 1,000,000 `toggle` machines in SQLite rows of 2,048 slots (`id = slot >> 11`,
// about the 60 KiB of today's chunks), each cell the slot's low 11 bits (2 bytes) and then the
// machine as a chunk holds it (`name | kind | state | timers`, varint counts). The journal holds
// UPDATES saves of random machines as version 6 would write them: the 12-byte header, the tag,
// the slot (a varint), the machine. The checkpoint
//   1. reads the journal once, in order, into (slot, where the machine is, where it ends);
//   2. counting-sorts those by row (stable: journal order within a row);
//   3. for each row records fall in: reads its body, finds its cells, lets each record take its
//      cell in journal order (the latest wins, with no search and no sort by name), writes the
//      cells again in slot order with an `UPDATE` of the same row, as chunks are written now.
// Deletes, timers, checksums and damage checks are left out (today's checkpoint reads records
// known whole too). It prints the checkpoint's CPU, and with SQLite's log merged, as a clean
// close does.
//
//   swiftc -O -I CSupport/CSQLite Bench/store/prototype/slot-image.swift -o /tmp/slot-image
//   /tmp/slot-image /tmp/slot-image.sqlite3 1000000   # builds the image on its first run
//
// Figures: Bench/README.md, "The store-slot image, prototyped (2026-12-03)".
import CSQLite
import Glibc

let machines = 1_000_000
let rowShift = 11
let rowSlots = 1 << rowShift
let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/slot-image.sqlite3"
let updates = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2])! : 1_000_000

func processCPU() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

func check(_ code: Int32, _ database: OpaquePointer?, _ what: String) {
  guard code != SQLITE_OK && code != SQLITE_DONE && code != SQLITE_ROW else { return }
  print("sqlite \(what): \(code) \(String(cString: sqlite3_errmsg(database)))")
  exit(1)
}

func run(_ database: OpaquePointer?, _ sql: String) {
  check(sqlite3_exec(database, sql, nil, nil, nil), database, sql)
}

func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
  var value = value
  while value >= 0x80 {
    bytes.append(UInt8(value & 0x7F) | 0x80)
    value >>= 7
  }
  bytes.append(UInt8(value))
}

/// A machine as a chunk holds it: `dev:SLOT`, `toggle`, `state`, no timers.
func appendMachine(_ slot: Int, state: String, to bytes: inout [UInt8]) {
  for text in ["dev:\(slot)", "toggle", state] {
    appendVarint(text.utf8.count, to: &bytes)
    bytes += Array(text.utf8)
  }
  bytes.append(0)
}

@inline(__always)
func readVarint(_ bytes: UnsafeRawPointer, _ at: inout Int) -> Int {
  var value = 0
  var shift = 0
  while true {
    let byte = Int(bytes.load(fromByteOffset: at, as: UInt8.self))
    at &+= 1
    value |= (byte & 0x7F) << shift
    if byte < 0x80 { return value }
    shift += 7
  }
}

/// Where the machine (four parts) that starts at `at` ends.
@inline(__always)
func machineEnd(_ bytes: UnsafeRawPointer, _ at: Int) -> Int {
  var at = at
  for _ in 0..<4 {
    let count = readVarint(bytes, &at)
    at &+= count
  }
  return at
}

var database: OpaquePointer?
let fresh = access(path, F_OK) != 0
check(sqlite3_open(path, &database), database, "open")
run(
  database,
  "PRAGMA locking_mode=EXCLUSIVE; PRAGMA page_size=65536; PRAGMA journal_mode=WAL;"
    + " PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY;")
if fresh {
  run(database, "CREATE TABLE rows(id INTEGER PRIMARY KEY, body BLOB NOT NULL); BEGIN")
  var insert: OpaquePointer?
  check(
    sqlite3_prepare_v2(database, "INSERT INTO rows(id, body) VALUES (?, ?)", -1, &insert, nil),
    database, "insert")
  for row in 0..<(machines + rowSlots - 1) / rowSlots {
    var body: [UInt8] = []
    for slot in row * rowSlots..<min(machines, (row + 1) * rowSlots) {
      body += [UInt8(slot & 0xFF), UInt8(slot >> 8 & 0x07)]
      appendMachine(slot, state: "off", to: &body)
    }
    sqlite3_bind_int64(insert, 1, Int64(row))
    body.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), nil) }
    check(sqlite3_step(insert), database, "insert")
    sqlite3_reset(insert)
  }
  sqlite3_finalize(insert)
  run(database, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
}

var journal: [UInt8] = []
var generator = SystemRandomNumberGenerator()
for _ in 0..<updates {
  let slot = Int.random(in: 0..<machines, using: &generator)
  var payload: [UInt8] = [1]
  appendVarint(slot, to: &payload)
  appendMachine(slot, state: Bool.random(using: &generator) ? "on" : "off", to: &payload)
  withUnsafeBytes(of: UInt32(payload.count).littleEndian) { journal += $0 }
  journal += [UInt8](repeating: 0, count: 8) + payload
}

struct Located {
  var slot: UInt32
  var start: UInt32
  var end: UInt32
}

@inline(never)
func checkpoint(_ journal: UnsafeRawBufferPointer) -> Int {
  let base = journal.baseAddress!
  let rows = (machines + rowSlots - 1) / rowSlots
  // 1. The records, in order; each row's count.
  let records = UnsafeMutablePointer<Located>.allocate(capacity: updates)
  let starts = UnsafeMutablePointer<Int>.allocate(capacity: rows + 1)
  starts.initialize(repeating: 0, count: rows + 1)
  var (offset, count) = (0, 0)
  while offset + 12 <= journal.count {
    let length = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    var at = offset + 13
    let slot = readVarint(base, &at)
    records[count] = Located(slot: UInt32(slot), start: UInt32(at), end: UInt32(offset + 12 + length))
    starts[slot >> rowShift + 1] &+= 1
    count &+= 1
    offset &+= 12 + length
  }
  // 2. By row, in journal order within each.
  for row in 0..<rows { starts[row + 1] &+= starts[row] }
  let byRow = UnsafeMutablePointer<Located>.allocate(capacity: count)
  let next = UnsafeMutablePointer<Int>.allocate(capacity: rows)
  next.initialize(from: starts, count: rows)
  for index in 0..<count {
    let row = Int(records[index].slot) >> rowShift
    byRow[next[row]] = records[index]
    next[row] &+= 1
  }
  // 3. Each row records fall in: its cells (from the old body, or a record: the last wins).
  let cellStart = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: rowSlots)
  let cellEnd = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: rowSlots)
  let old = UnsafeMutableRawPointer.allocate(byteCount: 1 << 17, alignment: 16)
  let body = UnsafeMutableRawPointer.allocate(byteCount: 1 << 18, alignment: 16)
  var select: OpaquePointer?
  var update: OpaquePointer?
  check(
    sqlite3_prepare_v2(database, "SELECT body FROM rows WHERE id = ?", -1, &select, nil),
    database, "select")
  check(
    sqlite3_prepare_v2(database, "UPDATE rows SET body = ? WHERE id = ?", -1, &update, nil),
    database, "update")
  run(database, "BEGIN")
  var written = 0
  for row in 0..<rows where starts[row + 1] > starts[row] {
    sqlite3_bind_int64(select, 1, Int64(row))
    check(sqlite3_step(select), database, "select")
    let oldCount = Int(sqlite3_column_bytes(select, 0))
    old.copyMemory(from: sqlite3_column_blob(select, 0)!, byteCount: oldCount)
    sqlite3_reset(select)
    cellStart.initialize(repeating: nil, count: rowSlots)
    var at = 0
    while at < oldCount {
      let low = Int(old.loadUnaligned(fromByteOffset: at, as: UInt16.self))
      let end = machineEnd(old, at + 2)
      (cellStart[low], cellEnd[low]) = (UnsafeRawPointer(old + at + 2), UnsafeRawPointer(old + end))
      at = end
    }
    for index in starts[row]..<starts[row + 1] {
      let record = byRow[index]
      let cell = Int(record.slot) & (rowSlots - 1)
      (cellStart[cell], cellEnd[cell]) = (base + Int(record.start), base + Int(record.end))
    }
    var length = 0
    for cell in 0..<rowSlots {
      guard let start = cellStart[cell], let end = cellEnd[cell] else { continue }
      body.storeBytes(of: UInt16(cell), toByteOffset: length, as: UInt16.self)
      (body + length + 2).copyMemory(from: start, byteCount: end - start)
      length += 2 + (end - start)
    }
    sqlite3_bind_blob(update, 1, body, Int32(length), nil)
    sqlite3_bind_int64(update, 2, Int64(row))
    check(sqlite3_step(update), database, "update")
    sqlite3_reset(update)
    written += 1
  }
  run(database, "COMMIT")
  return written
}

let start = processCPU()
let written = journal.withUnsafeBytes { checkpoint($0) }
let checkpointed = processCPU()
// As `MachineStore.close()` ends: the write-ahead log merged into the database file.
run(database, "PRAGMA wal_checkpoint(TRUNCATE)")
let merged = processCPU()
print(
  "rows written \(written), checkpoint_cpu_ms \(Int((checkpointed - start) * 1e3)),"
    + " with the log merged (as store-bench's update_close_cpu_ms) \(Int((merged - start) * 1e3))")
