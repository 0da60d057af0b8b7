import Foundation
import MillraceWire
import Testing

@testable import MillraceHost

/// Stores written by earlier daemons: the rowid `machines` table with a `timers` table of one
/// row per timer (schema version 0, 1 KiB pages), and journals of version 2.
@Suite("Store migration")
struct StoreMigrationTests {
  let directory = StoreFixtures.directory("millrace-migrate")

  let timer = StoreFixtures.loginOK
  let tick = StoredTimer(
    input: "tick", repeats: true, spanNanoseconds: 5_000_000, deadlineWallNanoseconds: nil,
    queue: 0, effectID: 9)

  /// Makes `machines.sqlite3` as the daemon did before the compact layout: its set-up SQL,
  /// then `rows`.
  func makeVersion0Store(withRemaining: Bool = true, rows: String) throws {
    let old = try SQLiteConnection(path: directory + "/machines.sqlite3")
    try old.execute(
      """
      PRAGMA page_size=1024;
      PRAGMA journal_mode=WAL;
      CREATE TABLE machines(name TEXT PRIMARY KEY, kind TEXT NOT NULL, state TEXT NOT NULL);
      CREATE TABLE timers(
        machine TEXT NOT NULL, position INTEGER NOT NULL, input TEXT NOT NULL,
        repeats INTEGER NOT NULL, span_ns INTEGER NOT NULL, deadline_ns INTEGER,
        queue INTEGER NOT NULL, effect_id INTEGER NOT NULL,
        \(withRemaining ? "remaining_ns INTEGER," : "") PRIMARY KEY(machine, position));
      \(rows)
      """)
  }

  /// The snapshot's schema version, page size and table definitions, read with a connection
  /// of its own (the store must be closed).
  func layout() throws -> (version: Int64?, pageSize: Int64?, tables: [String]) {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    var version, pageSize: Int64?
    var tables: [String] = []
    try database.run("PRAGMA user_version") { version = SQLiteConnection.integer($0, 0) }
    try database.run("PRAGMA page_size") { pageSize = SQLiteConnection.integer($0, 0) }
    try database.run("SELECT sql FROM sqlite_master WHERE type = 'table'") {
      tables.append(SQLiteConnection.text($0, 0))
    }
    return (version, pageSize, tables)
  }

  /// Makes `machines.sqlite3` with the table of one row per machine (schemas 2 and 3) at
  /// schema `version`, then runs `rows`; returns the connection.
  func makeCompactStore(version: Int, _ rows: String) throws -> SQLiteConnection {
    let earlier = try SQLiteConnection(path: directory + "/machines.sqlite3")
    try earlier.execute(
      """
      PRAGMA page_size=4096;
      PRAGMA journal_mode=WAL;
      CREATE TABLE machines(
        name TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, timers BLOB
      ) WITHOUT ROWID;
      PRAGMA user_version=\(version);
      \(rows)
      """)
    return earlier
  }

  /// Writes `machines.journal` of `epoch` holding `machine` saved, as the daemons of schemas
  /// 2 and 3 wrote it (version 3).
  func writeJournal(epoch: UInt64, saving machine: StoredMachine) throws {
    try Data(JournalVersion4.journal([.save(machine)], epoch: epoch, version: 3)).write(
      to: URL(fileURLWithPath: directory + "/machines.journal"))
  }

  @Test("a store of the earlier layout is migrated on open: rows, timers in order, 4 KiB pages")
  func migrateVersion0() throws {
    try makeVersion0Store(
      rows: """
        INSERT INTO machines VALUES('a', 'auth', 'loggingIn');
        INSERT INTO machines VALUES('b', 'toggle', 'on');
        INSERT INTO machines VALUES('ü', '', 'état');
        INSERT INTO timers VALUES('a', 1, 'tick', 1, 5000000, NULL, 0, 9, NULL);
        INSERT INTO timers VALUES('a', 0, 'loginOK', 0, 1000000000, 1700000000000000000, 1, -1,
          250000000);
        INSERT INTO timers VALUES('gone', 0, 'tick', 1, 5000000, NULL, 0, 9, NULL);
        """)
    let expected = [
      StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer, tick]),
      StoredMachine(name: "b", kind: "toggle", state: "on"),
      StoredMachine(name: "ü", kind: "", state: "état"),
    ]
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      #expect(try store.loadAll() == expected)
      // Changes go on in the new layout.
      try store.save(StoredMachine(name: "b", kind: "toggle", state: "off", timers: [tick]))
      try store.commit()
      try store.close()
    }
    let (version, pageSize, tables) = try layout()
    #expect(version == Int64(SQLiteSnapshot.schemaVersion))
    #expect(pageSize == Int64(SQLiteSnapshot.pageSize))
    #expect(tables.count == 4)
    #expect(tables.contains { $0.hasPrefix("CREATE TABLE rows") })
    #expect(tables.contains { $0.hasPrefix("CREATE TABLE states") })
    #expect(tables.contains { $0.hasPrefix("CREATE TABLE stateNames") })
    #expect(tables.contains { $0.hasPrefix("CREATE TABLE checkpoint") })
    var after = expected
    after[1] = StoredMachine(name: "b", kind: "toggle", state: "off", timers: [tick])
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == after)
  }

  @Test("a store made before the time remaining was kept migrates; its timers read as not known")
  func migrateWithoutRemainingColumn() throws {
    try makeVersion0Store(
      withRemaining: false,
      rows: """
        INSERT INTO machines VALUES('a', 'auth', 'loggingIn');
        INSERT INTO timers VALUES('a', 0, 'loginOK', 0, 1000000000, 1700000000000000000, 1, -1);
        """)
    let store = try MachineStore(directory: directory, durability: .batched)
    var known = timer
    known.remainingNanoseconds = nil
    #expect(
      try store.loadAll() == [
        StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [known])
      ])
  }

  @Test("an empty store of the earlier layout migrates to an empty one")
  func migrateEmpty() throws {
    try makeVersion0Store(rows: "")
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll().isEmpty)
    #expect(try layout().version == Int64(SQLiteSnapshot.schemaVersion))
  }

  @Test("a store of a later schema version is refused, not changed")
  func laterVersion() throws {
    do {
      let later = try SQLiteConnection(path: directory + "/machines.sqlite3")
      try later.execute("CREATE TABLE machines(name TEXT); PRAGMA user_version=7;")
    }
    let refused = #expect(throws: StoreError.self) {
      _ = try MachineStore(directory: directory, durability: .batched)
    }
    #expect(refused?.message.contains("schema version 7") == true)
    #expect(try layout().version == 7)
  }

  @Test("a store of schema version 2 (the compact table alone) gets its checkpoint epoch")
  func migrateVersion2() throws {
    _ = try makeCompactStore(version: 2, "INSERT INTO machines VALUES('a', 'toggle', 'on', NULL);")
    // Its daemon's journal (one file, version 3, epoch 5) holds a change not checkpointed.
    try writeJournal(epoch: 5, saving: StoredMachine(name: "b", kind: "toggle", state: "off"))
    let expected = [
      StoredMachine(name: "a", kind: "toggle", state: "on"),
      StoredMachine(name: "b", kind: "toggle", state: "off"),
    ]
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == expected)
    #expect(try layout().version == Int64(SQLiteSnapshot.schemaVersion))
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == expected)
  }

  @Test("a store of schema version 3 (a row per machine) becomes the image's rows, epoch kept")
  func migrateVersion3() throws {
    do {
      let earlier = try makeCompactStore(
        version: 3,
        """
        CREATE TABLE checkpoint(epoch INTEGER NOT NULL);
        INSERT INTO checkpoint VALUES (4);
        WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 2999)
        INSERT INTO machines SELECT printf('m%090d', x), 'toggle', 'off', NULL FROM n;
        """)
      let update = try earlier.prepare("UPDATE machines SET timers = ? WHERE name = ?")
      let timers = TimerEncoding.encode([timer, tick])
      let name = Array(String(format: "m%090d", 7).utf8)
      try timers.withBytes { (timers) throws(StoreError) in
        try name.withBytes { (name) throws(StoreError) in
          earlier.bind(update, 1, blob: timers)
          earlier.bind(update, 2, text: name)
          try earlier.step(update)
        }
      }
    }
    // A journal of the snapshot's epoch is in already: not replayed.
    try writeJournal(epoch: 4, saving: StoredMachine(name: "zzz", kind: "toggle", state: "on"))
    var expected = (0..<3000).map {
      StoredMachine(name: String(format: "m%090d", $0), kind: "toggle", state: "off")
    }
    expected[7].timers = [timer, tick]
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == expected)
    let (version, _, tables) = try layout()
    #expect(version == Int64(SQLiteSnapshot.schemaVersion))
    #expect(tables.contains { $0.hasPrefix("CREATE TABLE rows") })
    #expect(!tables.contains { $0.contains("\"machines\"") || $0.contains("TABLE machines") })
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    var rows: Int64 = 0
    try database.run("SELECT count(*) FROM rows") { rows = SQLiteConnection.integer($0, 0)! }
    #expect(rows == 2)
  }

  @Test("a schema 4 store's machines take slots in name order; its journal replays by name")
  func migrateVersion4() throws {
    do {
      let earlier = try SQLiteConnection(path: directory + "/machines.sqlite3")
      try earlier.execute(
        """
        PRAGMA page_size=65536;
        PRAGMA journal_mode=WAL;
        CREATE TABLE checkpoint(epoch INTEGER NOT NULL);
        INSERT INTO checkpoint VALUES (6);
        CREATE TABLE chunks(
          id INTEGER PRIMARY KEY, low BLOB, machines INTEGER NOT NULL, body BLOB NOT NULL);
        PRAGMA user_version=4;
        """)
      let insert = try earlier.prepare("INSERT INTO chunks VALUES (?, ?, ?, ?)")
      // Two chunks, the later names in the row written first: 2,100 names in all.
      for (id, range) in [(Int64(1), 1000..<2100), (Int64(2), 0..<1000)] {
        let body = ByteBuffer()
        for number in range {
          let parts = [
            Array(String(format: "m%05d", number).utf8), Array("toggle".utf8), Array("off".utf8),
            number == 1500 ? TimerEncoding.encode([timer]) : [],
          ]
          parts[0].withUnsafeBytes { name in
            parts[1].withUnsafeBytes { kind in
              parts[2].withUnsafeBytes { state in
                parts[3].withUnsafeBytes { timers in
                  ImageChunk.append(
                    ImageChunk.Entry(name: name, kind: kind, state: state, timers: timers),
                    to: body)
                }
              }
            }
          }
        }
        let chunk = body.bytes
        let low = Array(String(format: "m%05d", range.lowerBound).utf8)
        try chunk.withBytes { (chunk) throws(StoreError) in
          try low.withBytes { (low) throws(StoreError) in
            earlier.bind(insert, 1, integer: id)
            earlier.bind(insert, 2, blob: low)
            earlier.bind(insert, 3, integer: Int64(range.count))
            earlier.bind(insert, 4, blob: chunk)
            try earlier.step(insert)
          }
        }
      }
    }
    // Its daemon's crash left a journal of epoch 7 (version 5: no slots): replayed by name.
    let records = ByteBuffer()
    let changed = StoredMachine(name: "m00005", kind: "toggle", state: "on")
    JournalFormat.append(.save(changed), slot: nil, epoch: 7, to: records)
    JournalFormat.append(.delete(name: "m02000"), slot: nil, epoch: 7, to: records)
    try Data(JournalFormat.header(epoch: 7, version: 5) + records.bytes).write(
      to: URL(fileURLWithPath: directory + "/machines.journal"))
    var expected = (0..<2100).map {
      StoredMachine(name: String(format: "m%05d", $0), kind: "toggle", state: "off")
    }
    expected[1500].timers = [timer]
    expected[5] = changed
    expected.remove(at: 2000)
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      #expect(try store.loadAll() == expected)
      var slots: [String: UInt32] = [:]
      try store.forEach { slots[String(decoding: $0.name, as: UTF8.self)] = $0.slot }
      #expect(slots["m00000"] == 0 && slots["m00005"] == 5 && slots["m02099"] == 2099)
      #expect(slots["m02000"] == nil && slots.count == 2099)
      try store.close()
    }
    let (version, _, tables) = try layout()
    #expect(version == Int64(SQLiteSnapshot.schemaVersion))
    #expect(!tables.contains { $0.contains("chunks") })
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == expected)
  }

  @Test("a version 2 journal left by a crash is replayed over a migrated store, then goes on")
  func version2Journal() throws {
    try makeVersion0Store(
      rows: """
        INSERT INTO machines VALUES('a', 'auth', 'loggedOut');
        INSERT INTO machines VALUES('b', 'toggle', 'on');
        """)
    // The earlier daemon's turns since its last checkpoint, epoch 7.
    let changes: [JournalChange] = [
      .save(StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer, tick])),
      .delete(name: "b"),
      .save(StoredMachine(name: "c", kind: "toggle", state: "off")),
    ]
    let bytes =
      JournalFormat.header(epoch: 7, version: 2) + JournalVersion2.records(changes, epoch: 7)
    try expectReplayed(bytes, epoch: 7)
  }

  /// Writes `journal` (an earlier version's, of `epoch`, above the snapshot's) where a crash
  /// would have left it, with zeros after it, and expects a store opened over it to hold
  /// machines `a` (`loggingIn` with two timers) and `c` (`off`), to go on in the version
  /// written with the next epoch, and to replay that version's records after another crash.
  func expectReplayed(_ journal: [UInt8], epoch: UInt64) throws {
    let path = directory + "/machines.journal"
    try Data(journal + [UInt8](repeating: 0, count: 1000)).write(to: URL(fileURLWithPath: path))
    let expected = [
      StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer, tick]),
      StoredMachine(name: "c", kind: "toggle", state: "off"),
    ]
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      #expect(try store.loadAll() == expected)
      let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
      #expect(Array(header) == JournalFormat.header(epoch: epoch + 1))
      #expect(Array(header.prefix(8)) == Array("MRJRNL0\(JournalFormat.version)".utf8))
      // The next turns are records of the version written, replayed after the next crash.
      try store.save(StoredMachine(name: "c", kind: "toggle", state: "on"))
      try store.commit()
    }
    var after = expected
    after[1].state = "on"
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == after)
  }

  @Test(
    "a version 3 or 4 journal left by a crash is replayed, then goes on in the version written",
    arguments: [3, 4])
  func version3And4Journal(_ version: Int) throws {
    do { try MachineStore(directory: directory, durability: .batched).close() }
    let changes: [JournalChange] = [
      .save(StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer, tick])),
      .save(StoredMachine(name: "b", kind: "toggle", state: "on")),
      .delete(name: "b"),
      .save(StoredMachine(name: "c", kind: "toggle", state: "off")),
    ]
    try expectReplayed(JournalVersion4.journal(changes, epoch: 90, version: version), epoch: 90)
  }

  @Test("a version 5 journal (records without a slot) left by a crash is replayed")
  func version5Journal() throws {
    do { try MachineStore(directory: directory, durability: .batched).close() }
    let records = ByteBuffer()
    for change: JournalChange in [
      .save(StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer, tick])),
      .save(StoredMachine(name: "b", kind: "toggle", state: "on")),
      .delete(name: "b"),
      .save(StoredMachine(name: "c", kind: "toggle", state: "off")),
    ] {
      JournalFormat.append(change, slot: nil, epoch: 90, to: records)
    }
    try expectReplayed(JournalFormat.header(epoch: 90, version: 5) + records.bytes, epoch: 90)
  }

  @Test("a version 6 journal (saves and deletes by slot) left by a crash is replayed as it is")
  func version6Journal() throws {
    do { try MachineStore(directory: directory, durability: .batched).close() }
    let records = ByteBuffer()
    for (slot, change): (UInt32, JournalChange) in [
      (
        0, .save(StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer, tick]))
      ),
      (1, .save(StoredMachine(name: "b", kind: "toggle", state: "on"))),
      (1, .delete(name: "b")),
      (2, .save(StoredMachine(name: "c", kind: "toggle", state: "off"))),
    ] {
      JournalFormat.append(change, slot: slot, epoch: 90, to: records)
    }
    try expectReplayed(JournalFormat.header(epoch: 90, version: 6) + records.bytes, epoch: 90)
  }
}
