import Foundation
import MillraceWire
import Testing

@testable import MillraceHost

/// The snapshot's image: machines in rows of store slots, rewritten only where a checkpoint's
/// records fall.
@Suite("Store image")
struct StoreImageTests {
  let directory = StoreFixtures.directory("millrace-image")
  /// Names of about 90 bytes.
  static let padding = String(repeating: "p", count: 84)
  let machineCount = 8000
  let timer = StoredTimer(
    input: "t", repeats: false, spanNanoseconds: 7, deadlineWallNanoseconds: 9,
    remainingNanoseconds: 3, queue: 1, effectID: 2)

  func name(_ index: Int) -> String { "m\(Self.padding)\(index)" }

  /// Replaces every row of the closed store in `directory` with one row of `body`.
  static func overwriteRows(in directory: String, with body: [UInt8]) throws {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    try database.execute("DELETE FROM rows")
    let insert = try database.prepare("INSERT INTO rows VALUES (0, 1, ?)")
    try body.withBytes { (body) throws(StoreError) in
      database.bind(insert, 1, blob: body)
      try database.step(insert)
    }
  }

  /// The rows of the closed store in `directory`: id, machines, body.
  func rows() throws -> [(id: Int64, machines: Int64, body: [UInt8])] {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    var rows: [(Int64, Int64, [UInt8])] = []
    try database.run("SELECT id, machines, body FROM rows ORDER BY id") { row in
      rows.append(
        (
          SQLiteConnection.integer(row, 0)!, SQLiteConnection.integer(row, 1)!,
          Array(SQLiteConnection.bytes(row, 2))
        ))
    }
    return rows
  }

  /// Opens the store, makes `changes` on it, commits them and closes it (a clean stop).
  func withStore(_ changes: (MachineStore) throws -> Void) throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    try changes(store)
    try store.commit()
    try store.close()
  }

  /// A store of `machineCount` machines, closed.
  func fill() throws -> [String: StoredMachine] {
    var machines: [String: StoredMachine] = [:]
    try withStore { store in
      for index in 0..<machineCount {
        let machine = StoredMachine(name: name(index), kind: "toggle", state: "off")
        try store.save(machine)
        machines[machine.name] = machine
      }
    }
    return machines
  }

  func sorted(_ machines: [String: StoredMachine]) -> [StoredMachine] {
    machines.values.sorted { $0.name < $1.name }
  }

  @Test("names are compared as their bytes are, unsigned, a prefix before the longer name")
  func namesCompareByBytes() {
    var generator = SystemRandomNumberGenerator()
    let alphabet: [UInt8] = [0, 1, 0x41, 0x7F, 0x80, 0xFF]
    for _ in 0..<20_000 {
      let left = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
        alphabet.randomElement(using: &generator)!
      }
      // Often the same first bytes, for the comparison to go past them.
      var right = Array(left.prefix(Int.random(in: 0...left.count, using: &generator)))
      right += (0..<Int.random(in: 0...16, using: &generator)).map { _ in
        alphabet.randomElement(using: &generator)!
      }
      let expected = left.lexicographicallyPrecedes(right) ? -1 : (left == right ? 0 : 1)
      let order = left.withUnsafeBytes { left in
        right.withUnsafeBytes { right in ImageChunk.compare(left, right) }
      }
      #expect(order.signum() == expected, "\(left) \(right)")
    }
  }

  @Test("machines saved by name take slots 0, 1, 2, ...: rows of 2,048 slots, in slot order")
  func rowsBySlot() throws {
    let machines = try fill()
    let rows = try rows()
    #expect(rows.map(\.id) == [0, 1, 2, 3])
    #expect(rows.map(\.machines) == [2048, 2048, 2048, Int64(machineCount - 3 * 2048)])
    let store = try MachineStore(directory: directory, durability: .batched)
    #expect(try store.count() == machineCount)
    #expect(try store.loadAll() == sorted(machines))
    var slots: [UInt32] = []
    try store.forEach { slots.append($0.slot) }
    #expect(slots == Array(0..<UInt32(machineCount)))
  }

  @Test("saves by slot land in their rows; forEach hands them out in slot order")
  func savesBySlot() throws {
    let slots: [UInt32] = [100_000, 5, 2048, 2047, 3]
    try withStore { store in
      for slot in slots {
        "m\(slot)".withUTF8Bytes {
          store.save(slot: slot, nameUTF8: $0, kind: "toggle", state: "on")
        }
      }
      // A slot saved again holds its last save; one deleted, nothing.
      "other".withUTF8Bytes { store.save(slot: 5, nameUTF8: $0, kind: "toggle", state: "off") }
      store.delete(slot: 3, name: "m3")
    }
    #expect(try rows().map(\.id) == [0, 1, 48])
    var read: [String] = []
    try MachineStore(directory: directory, durability: .batched).forEach { row in
      read.append("\(row.slot) \(String(decoding: row.name, as: UTF8.self))")
    }
    #expect(read == ["5 other", "2047 m2047", "2048 m2048", "100000 m100000"])
  }

  @Test(
    "changes by name take slots the image leaves free; by name after by slot in one turn, refused")
  func byNameAfterBySlot() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    "a".withUTF8Bytes { store.save(slot: 0, nameUTF8: $0, kind: "toggle", state: "on") }
    // The slots by name are read from the image after a checkpoint, which the turn's record
    // by slot is not in yet: refused, and the turn goes on.
    let refused = #expect(throws: StoreError.self) {
      try store.save(name: "b", kind: "toggle", state: "on")
    }
    #expect(refused?.code == EINVAL)
    try store.commit()
    try store.save(name: "b", kind: "toggle", state: "on")
    try store.save(name: "a", kind: "toggle", state: "off")
    try store.commit()
    var slots: [String] = []
    try store.forEach { slots.append("\($0.slot) \(String(decoding: $0.name, as: UTF8.self))") }
    #expect(slots == ["0 a", "1 b"])
    #expect(try store.loadAll().map(\.state) == ["off", "on"])
  }

  @Test("a write by slot after writes by name: the next by name takes no slot it wrote")
  func bySlotAfterByName() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    try store.save(name: "a", kind: "toggle", state: "on")  // slot 0
    try store.commit()
    "b".withUTF8Bytes { store.save(slot: 1, nameUTF8: $0, kind: "toggle", state: "on") }
    try store.commit()
    // Slot 1 is b's now: c takes slot 2, and b is kept.
    try store.save(name: "c", kind: "toggle", state: "on")
    try store.commit()
    store.delete(slot: 0, name: "a")
    try store.commit()
    // a's slot freed by slot: deleting a by name finds nothing, and d takes a slot no one has.
    try store.delete(name: "a")
    try store.save(name: "d", kind: "toggle", state: "off")
    try store.commit()
    var slots: [String] = []
    try store.forEach { slots.append("\($0.slot) \(String(decoding: $0.name, as: UTF8.self))") }
    #expect(slots == ["1 b", "2 c", "3 d"])
  }

  @Test("a checkpoint rewrites only the rows its records fall in")
  func onlyTouchedRows() throws {
    var machines = try fill()
    let before = try rows()
    // Machine 2000 (by name, in slot 2000 of row 0), changed: row 0 only.
    let changed = StoredMachine(name: name(2000), kind: "toggle", state: "on", timers: [timer])
    try withStore { try $0.save(changed) }
    machines[changed.name] = changed
    let after = try rows()
    #expect(after.map(\.id) == before.map(\.id))
    #expect(zip(before, after).filter { $0.body != $1.body }.map(\.0.id) == [0])
    #expect(
      try MachineStore(directory: directory, durability: .batched).loadAll() == sorted(machines))
  }

  @Test("saves and deletes over many rows leave what a dictionary of them says, across restarts")
  func manyRows() throws {
    var expected = try fill()
    var generator = SystemRandomNumberGenerator()
    for round in 0..<4 {
      let store = try MachineStore(directory: directory, durability: .batched)
      #expect(try store.loadAll() == sorted(expected), "round \(round), as opened")
      for turn in 0..<30 {
        for _ in 0..<Int.random(in: 1...150, using: &generator) {
          // Names before the first and after the last too, and new ones between.
          let machineName =
            Int.random(in: 0..<10, using: &generator) == 0
            ? "\(["a", "z"].randomElement(using: &generator)!)\(Int.random(in: 0..<50, using: &generator))"
            : name(Int.random(in: 0..<(machineCount + 500), using: &generator))
          try StoreFixtures.change(
            machineName, delete: Int.random(in: 0..<4, using: &generator) == 0, kind: "toggle",
            state: "s\(round).\(turn)", timers: turn.isMultiple(of: 2) ? [timer] : [],
            in: store, expected: &expected)
        }
        // A run of a few hundred names deleted at once.
        if round == 1 && turn == 5 {
          for index in 1000..<1900 {
            try store.delete(name: name(index))
            expected[name(index)] = nil
          }
        }
        try store.commit()
        if turn.isMultiple(of: 7) { try store.checkpoint() }
      }
      #expect(try store.loadAll() == sorted(expected), "round \(round)")
      // Rounds end with a clean stop, or as a crash leaves the files (the journal replayed at
      // the next open).
      if round.isMultiple(of: 2) { try store.close() }
    }
    #expect(
      try MachineStore(directory: directory, durability: .batched).loadAll() == sorted(expected))
  }

  @Test("deleting every machine leaves no row; the next saves start the image again")
  func emptied() throws {
    let machines = try fill()
    try withStore { store in
      for name in machines.keys { try store.delete(name: name) }
    }
    #expect(try rows().isEmpty)
    let store = try MachineStore(directory: directory, durability: .batched)
    #expect(try store.count() == 0)
    let again = StoredMachine(name: "b", kind: "toggle", state: "on")
    try store.save(again)
    try store.commit()
    #expect(try store.loadAll() == [again])
  }

  @Test("a chunk's names must come in order, each once: a name out of order is damage")
  func chunkOrder() {
    /// The names a reader takes from a body of machines named `names`, and whether it stopped
    /// at damage.
    func read(_ names: [String]) -> ([String], Bool) {
      let body = ByteBuffer()
      for name in names {
        Array(name.utf8).withUnsafeBytes { name in
          let none = UnsafeRawBufferPointer(start: nil, count: 0)
          ImageChunk.append(
            ImageChunk.Entry(name: name, kind: none, state: none, timers: none), to: body)
        }
      }
      return body.bytes.withUnsafeBytes { bytes in
        var reader = ImageChunk.Reader(bytes)
        var read: [String] = []
        while let entry = reader.next() { read.append(String(decoding: entry.name, as: UTF8.self)) }
        return (read, reader.isDamaged)
      }
    }
    #expect(read(["a", "ab", "b"]) == (["a", "ab", "b"], false))
    #expect(read(["b", "a"]) == (["b"], true))
    #expect(read(["a", "a"]) == (["a"], true))
    #expect(read(["ab", "a"]) == (["ab"], true))
  }

  @Test("a row no slot can be in, or that claims no machine, is a store error at open")
  func impossibleRow() throws {
    for values in ["(1 << 21, 1, x'00')", "(3, 0, x'00')"] {
      let directory = StoreFixtures.directory("millrace-image-row")
      do { try MachineStore(directory: directory, durability: .batched).close() }
      do {
        let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
        try database.execute("INSERT INTO rows VALUES \(values)")
      }
      let refused = #expect(throws: StoreError.self) {
        _ = try MachineStore(directory: directory, durability: .batched)
      }
      #expect(refused?.message.contains("is not a row of the image") == true, "\(values)")
    }
  }

  @Test("a row that does not decode is a store error, at a read and at a checkpoint")
  func damagedRow() throws {
    _ = try fill()
    // Cell 0, a name of 5 bytes of which 3 are there.
    try Self.overwriteRows(in: directory, with: [0, 0, 5, 0x61, 0x62, 0x63])
    let store = try MachineStore(directory: directory, durability: .batched)
    let read = #expect(throws: StoreError.self) { try store.forEach { _ in } }
    #expect(read?.message.contains("does not decode") == true)
    // Into row 0 (a slot kept by the caller: by name, the store would read the image first).
    "b".withUTF8Bytes { store.save(slot: 1, nameUTF8: $0, kind: "toggle", state: "on") }
    try store.commit()
    let checkpoint = #expect(throws: StoreError.self) { try store.checkpoint() }
    #expect(checkpoint?.message.contains("does not decode") == true)
  }
}
