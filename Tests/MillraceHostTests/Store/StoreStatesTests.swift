import Foundation
import MillraceWire
import Testing

@testable import MillraceHost

/// The states apart from the image (`states`, `stateNames`): a checkpoint of state records
/// writes them by id instead of rewriting the machines' image rows, a save clears them, and
/// every read of the store sees them.
@Suite("Store states")
struct StoreStatesTests {
  let directory = StoreFixtures.directory("millrace-states")

  /// The image rows' bodies and the `states` rows' entries that are not 0, as SQLite holds
  /// them (the store closed).
  func tables() throws -> (rows: [Int64: [UInt8]], states: [UInt32: UInt16], names: [String]) {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    var rows: [Int64: [UInt8]] = [:]
    var states: [UInt32: UInt16] = [:]
    var names: [String] = []
    try database.run("SELECT id, body FROM rows") {
      rows[SQLiteConnection.integer($0, 0) ?? -1] = Array(SQLiteConnection.bytes($0, 1))
    }
    try database.run("SELECT id, body FROM states") { row in
      let id = Int(SQLiteConnection.integer(row, 0) ?? -1)
      let body = SQLiteConnection.bytes(row, 1)
      for index in 0..<StatesRow.slotsPerRow where StatesRow.id(at: index, in: body) != 0 {
        states[UInt32(id << StatesRow.slotBits | index)] = StatesRow.id(at: index, in: body)
      }
    }
    try database.run("SELECT text FROM stateNames ORDER BY id") {
      names.append(String(decoding: SQLiteConnection.bytes($0, 0), as: UTF8.self))
    }
    return (rows, states, names)
  }

  func toggle(_ name: String, _ state: String) -> StoredMachine {
    StoredMachine(name: name, kind: "toggle", state: state)
  }

  @Test("a checkpoint of state records writes their states by id, not the image's rows")
  func statesApart() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try store.save(toggle("a", "off"), slot: 1)
      try store.save(toggle("b", "off"), slot: 70_000)
      try store.commit()
      try store.close()
    }
    let before = try tables()
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      store.saveState(slot: 1, state: "on")
      store.saveState(slot: 70_000, state: "mid")
      store.saveState(slot: 70_000, state: "on")
      try store.commit()
      try store.close()
    }
    let after = try tables()
    #expect(after.rows == before.rows)
    #expect(after.states == [1: 1, 70_000: 1] && after.names == ["on"])
    // Every read sees the states, after a restart too.
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      #expect(try store.loadAll() == [toggle("a", "on"), toggle("b", "on")])
      var states: [UInt32: String] = [:]
      try store.forEach { states[$0.slot] = String(decoding: $0.state, as: UTF8.self) }
      #expect(states == [1: "on", 70_000: "on"])
      // A save clears its slot's state (its cell holds its own); a delete too.
      try store.save(toggle("a", "off"), slot: 1)
      store.delete(slot: 70_000, name: "b")
      try store.commit()
      #expect(try store.loadAll() == [toggle("a", "off")])
      try store.close()
    }
    #expect(try tables().states.isEmpty)
  }

  @Test("a state record after a save in one checkpoint, and one over a state by id")
  func orderWithinACheckpoint() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    try store.save(toggle("a", "off"), slot: 3)
    store.saveState(slot: 3, state: "on")
    try store.save(toggle("b", "off"), slot: 4)
    store.saveState(slot: 4, state: "on")
    try store.save(toggle("b", "new"), slot: 4)
    try store.commit()
    try store.checkpoint()
    #expect(try store.loadAll() == [toggle("a", "on"), toggle("b", "new")])
    store.saveState(slot: 3, state: "off")
    try store.commit()
    #expect(try store.loadAll() == [toggle("a", "off"), toggle("b", "new")])
  }

  @Test("a state text too long for an id goes into its machine's image cell")
  func longStateInTheImage() throws {
    let long = String(repeating: "x", count: StateNames.longestText + 1)
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try store.save(toggle("a", "off"), slot: 0)
      try store.commit()
      try store.checkpoint()
      store.saveState(slot: 0, state: "on")
      try store.commit()
      try store.checkpoint()
      store.saveState(slot: 0, state: long)
      try store.commit()
      try store.close()
    }
    let tables = try tables()
    #expect(tables.states.isEmpty && tables.names == ["on"])
    #expect(
      try MachineStore(directory: directory, durability: .batched).loadAll() == [
        toggle("a", long)
      ])
  }

  @Test("ids are given in order, and those of a rolled-back transaction are taken back")
  func names() throws {
    let names = StateNames()
    var stored: [UInt16] = []
    func id(_ text: String) throws -> UInt16? {
      try Array(text.utf8).withUnsafeBytes { bytes in
        try names.id(of: bytes) { (id, _) throws(StoreError) in stored.append(id) }
      }
    }
    #expect(try id("on") == 1 && id("off") == 2 && id("on") == 1 && id("off") == 2)
    #expect(stored == [1, 2])
    #expect(try id("mid") == 3)
    names.rollBack(to: 2)
    #expect(names.text(of: 3) == nil && names.count == 2)
    #expect(try id("later") == 3 && id("on") == 1)
    #expect(names.text(of: 3).map { String(decoding: $0, as: UTF8.self) } == "later")
    #expect(try id(String(repeating: "x", count: StateNames.longestText + 1)) == nil)
  }

  @Test("a store of schema 5 gets the empty tables; a state id without a text is damage")
  func schema5AndDamage() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try store.save(toggle("a", "off"), slot: 0)
      try store.commit()
      try store.close()
    }
    do {
      let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
      try database.execute("DROP TABLE states; DROP TABLE stateNames; PRAGMA user_version=5;")
    }
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      #expect(try store.loadAll() == [toggle("a", "off")])
      store.saveState(slot: 0, state: "on")
      try store.commit()
      try store.close()
    }
    #expect(try tables().states == [0: 1])
    do {
      let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
      try database.execute("DELETE FROM stateNames")
    }
    let store = try MachineStore(directory: directory, durability: .batched)
    #expect(
      performing: { try store.loadAll() },
      throws: { error in
        (error as? StoreError)?.message.contains("names no state text") == true
      })
  }

  @Test("ids given by a checkpoint that fails are taken back, so its retry stores them")
  func idsOfAFailedCheckpoint() throws {
    let snapshot = try SQLiteSnapshot(directory: directory, durability: .batched)
    let records = ByteBuffer()
    JournalFormat.append(.save(toggle("a", "off")), slot: 0, epoch: 1, to: records)
    JournalFormat.appendState(slot: 0, state: "on", epoch: 1, to: records)
    let journal = JournalFormat.header(epoch: 1) + records.bytes
    // The states row's write fails, after "on" got its id.
    try snapshot.database.execute(
      "CREATE TEMP TRIGGER refuse BEFORE INSERT ON states BEGIN SELECT RAISE(ABORT, 'no'); END;")
    #expect(throws: StoreError.self) {
      try journal.withUnsafeBytes { try snapshot.apply(journal: $0, epoch: 1) }
    }
    #expect(snapshot.stateNames.count == 0)
    try snapshot.database.execute("DROP TRIGGER refuse")
    try journal.withUnsafeBytes { try snapshot.apply(journal: $0, epoch: 1) }
    var names: [String] = []
    try snapshot.database.run("SELECT text FROM stateNames ORDER BY id") {
      names.append(String(decoding: SQLiteConnection.bytes($0, 0), as: UTF8.self))
    }
    #expect(names == ["on"])
    let states = try snapshot.withRows { (rows) throws(StoreError) in
      var states: [String] = []
      while let row = try rows.next() { states.append(String(decoding: row.state, as: UTF8.self)) }
      return states
    }
    #expect(states == ["on"])
  }

  @Test("state names out of order, or too long, are damage at open")
  func namesDamaged() throws {
    do { try MachineStore(directory: directory, durability: .batched).close() }
    do {
      let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
      try database.execute("INSERT INTO stateNames VALUES (2, 'on')")
    }
    #expect(
      performing: { try MachineStore(directory: directory, durability: .batched) },
      throws: {
        ($0 as? StoreError)?.message.contains("state name 2 is out of order") == true
      })
  }

  @Test("many texts in one checkpoint, short and long, more than its short parts hold")
  func manyTexts() throws {
    let slots = 0..<UInt32(3000)
    // Each slot's third state wins; the texts recur across slots, 400 short ones (more than
    // `ShortParts.capacity`) and 50 longer ones.
    func state(_ slot: UInt32, _ round: UInt32) -> String {
      let value = slot &* 7 &+ round
      return value % 7 == 0 ? "a longer state \(value % 50)" : "s\(value % 400)"
    }
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      for slot in slots { try store.save(toggle("m\(slot)", "off"), slot: slot * 11) }
      try store.commit()
      for round: UInt32 in 0..<3 {
        for slot in slots { store.saveState(slot: slot * 11, state: state(slot, round)) }
        try store.commit()
      }
      try store.close()
    }
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      var states: [UInt32: String] = [:]
      try store.forEach { states[$0.slot] = String(decoding: $0.state, as: UTF8.self) }
      #expect(states == Dictionary(uniqueKeysWithValues: slots.map { ($0 * 11, state($0, 2)) }))
      try store.close()
    }
    let names = try tables().names
    #expect(Set(names).count == names.count)
  }
}
