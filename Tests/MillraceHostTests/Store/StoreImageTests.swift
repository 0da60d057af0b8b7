import Foundation
import MillraceWire
import Testing

@testable import MillraceHost

/// The snapshot's image: machines in name order, in chunks rewritten only where a checkpoint's
/// records fall.
@Suite("Store image")
struct StoreImageTests {
  let directory = StoreFixtures.directory("millrace-image")
  /// Names of about 90 bytes: 8,000 machines take a dozen chunks.
  static let padding = String(repeating: "p", count: 84)
  let machineCount = 8000
  let timer = StoredTimer(
    input: "t", repeats: false, spanNanoseconds: 7, deadlineWallNanoseconds: 9,
    remainingNanoseconds: 3, queue: 1, effectID: 2)

  func name(_ index: Int) -> String { "m\(Self.padding)\(index)" }

  /// Replaces every chunk of the closed store in `directory` with one chunk of `body`.
  static func overwriteChunks(in directory: String, with body: [UInt8]) throws {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    try database.execute("DELETE FROM chunks")
    let insert = try database.prepare("INSERT INTO chunks VALUES (1, NULL, 1, ?)")
    try body.withBytes { (body) throws(StoreError) in
      database.bind(insert, 1, blob: body)
      try database.step(insert)
    }
  }

  /// The chunks of the closed store in `directory`: id, first name, machines, body size.
  func chunks() throws -> [(id: Int64, low: String, machines: Int64, size: Int64, body: [UInt8])] {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    var chunks: [(Int64, String, Int64, Int64, [UInt8])] = []
    try database.run("SELECT id, low, machines, length(body), body FROM chunks ORDER BY low") {
      row in
      chunks.append(
        (
          SQLiteConnection.integer(row, 0)!, SQLiteConnection.text(row, 1),
          SQLiteConnection.integer(row, 2)!, SQLiteConnection.integer(row, 3)!,
          Array(SQLiteConnection.bytes(row, 4))
        ))
    }
    return chunks
  }

  /// The pages of the closed store's database that hold something (not on its free list).
  func pagesInUse() throws -> Int64 {
    let database = try SQLiteConnection(path: directory + "/machines.sqlite3")
    var pages: Int64 = 0
    var free: Int64 = 0
    try database.run("PRAGMA page_count") { pages = SQLiteConnection.integer($0, 0)! }
    try database.run("PRAGMA freelist_count") { free = SQLiteConnection.integer($0, 0)! }
    return pages - free
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

  @Test("a large store is cut into chunks of about the target size, in name order")
  func chunked() throws {
    let machines = try fill()
    let chunks = try chunks()
    #expect(chunks.count > 8)
    #expect(chunks.allSatisfy { $0.size <= ImageChunk.targetBytes + 128 })
    #expect(chunks.dropLast().allSatisfy { $0.size >= ImageChunk.targetBytes })
    #expect(chunks.reduce(0) { $0 + $1.machines } == Int64(machineCount))
    // Each chunk is one page: the pages in use are the chunks' and a few of the schema's, not
    // the overflow chains smaller pages would give each chunk.
    let pages = try pagesInUse()
    #expect(pages <= Int64(chunks.count) + 6, "\(pages) pages, \(chunks.count) chunks")
    let store = try MachineStore(directory: directory, durability: .batched)
    #expect(try store.count() == machineCount)
    #expect(try store.loadAll() == sorted(machines))
  }

  @Test("a checkpoint rewrites only the chunks its records fall in")
  func onlyTouchedChunks() throws {
    var machines = try fill()
    let before = try chunks()
    let changed = StoredMachine(name: name(2000), kind: "toggle", state: "on", timers: [timer])
    try withStore { try $0.save(changed) }
    machines[changed.name] = changed
    let after = try chunks()
    // Every chunk but the one the record fell in is as it was, in its row; that one was
    // written over its own row (and, grown past the target, into one new row at most).
    let untouched = before.filter { old in
      after.contains { $0.id == old.id && $0.body == old.body }
    }
    #expect(untouched.count == before.count - 1)
    #expect(Set(after.map(\.id)).isSuperset(of: before.map(\.id)))
    #expect(after.count <= before.count + 1)
    #expect(
      try MachineStore(directory: directory, durability: .batched).loadAll() == sorted(machines))
  }

  @Test("chunks thinned by deletes in one run of touched chunks are joined, not left small")
  func thinnedChunksJoin() throws {
    var machines = try fill()
    let before = try chunks()
    // Four machines of five, across every chunk: one run of touched chunks.
    let deleted = (0..<machineCount).filter { !$0.isMultiple(of: 5) }.map(name)
    try withStore { store in
      for name in deleted { try store.delete(name: name) }
    }
    for name in deleted { machines[name] = nil }
    let after = try chunks()
    // A fifth of the bytes in chunks of the target size again, not a dozen fifths of one.
    #expect(after.count <= before.count / 4 + 1)
    #expect(after.dropLast().allSatisfy { $0.size >= ImageChunk.targetBytes })
    #expect(
      try MachineStore(directory: directory, durability: .batched).loadAll() == sorted(machines))
  }

  @Test("saves and deletes over many chunks leave what a dictionary of them says, across restarts")
  func manyChunks() throws {
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
        // Whole chunks emptied: a run of a few hundred names deleted at once.
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

  @Test("deleting every machine leaves no chunk; the next saves start the image again")
  func emptied() throws {
    let machines = try fill()
    try withStore { store in
      for name in machines.keys { try store.delete(name: name) }
    }
    #expect(try chunks().isEmpty)
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

  @Test("a chunk that does not decode is a store error, at a read and at a checkpoint")
  func damagedChunk() throws {
    _ = try fill()
    // A name of 5 bytes of which 3 are there.
    try Self.overwriteChunks(in: directory, with: [5, 0x61, 0x62, 0x63])
    let store = try MachineStore(directory: directory, durability: .batched)
    let read = #expect(throws: StoreError.self) { try store.forEach { _ in } }
    #expect(read?.message.contains("does not decode") == true)
    try store.save(StoredMachine(name: "b", kind: "toggle", state: "on"))
    try store.commit()
    let checkpoint = #expect(throws: StoreError.self) { try store.checkpoint() }
    #expect(checkpoint?.message.contains("does not decode") == true)
  }
}
