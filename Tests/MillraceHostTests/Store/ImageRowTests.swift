import MillraceWire
import Testing

@testable import MillraceHost

#if canImport(Glibc)
  import Glibc
#endif

/// Rows of an image indexed by store slot (`ImageRow`) and a checkpoint's changes to them
/// (`RowChanges`): machines found by slot, the latest change of a slot winning.
@Suite("Image rows")
struct ImageRowTests {
  /// A machine as `ImageChunk` writes it: `name`, kind `toggle`, `state`, no timers.
  static func machine(_ name: String, _ state: String) -> [UInt8] {
    let body = ByteBuffer()
    Array(name.utf8).withUnsafeBytes { name in
      Array("toggle".utf8).withUnsafeBytes { kind in
        Array(state.utf8).withUnsafeBytes { state in
          ImageChunk.append(
            ImageChunk.Entry(
              name: name, kind: kind, state: state,
              timers: UnsafeRawBufferPointer(start: nil, count: 0)), to: body)
        }
      }
    }
    return body.bytes
  }

  /// A row's body of `cells`, each a cell and its machine's bytes, in the order given.
  static func body(_ cells: [(cell: Int, machine: [UInt8])]) -> [UInt8] {
    let body = ByteBuffer()
    for (cell, machine) in cells {
      machine.withUnsafeBytes { ImageRow.append(cell: cell, machine: $0, to: body) }
    }
    return body.bytes
  }

  /// What a reader takes from `body`: each cell and its machine's name and state, and whether
  /// it stopped at damage.
  static func read(_ body: [UInt8]) -> (cells: [String], damaged: Bool) {
    body.withUnsafeBytes { bytes in
      var reader = ImageRow.Reader(bytes)
      var cells: [String] = []
      while let (cell, machine) = reader.next() {
        cells.append(
          "\(cell) \(String(decoding: machine.name, as: UTF8.self))"
            + " \(String(decoding: machine.state, as: UTF8.self))")
      }
      return (cells, reader.isDamaged)
    }
  }

  @Test("a row reads its machines back in slot order; toggle dev:123456 in off takes 25 bytes")
  func roundTrip() {
    let row = Self.body([
      (0, Self.machine("dev:123456", "off")), (5, Self.machine("b", "on")),
      (2047, Self.machine("c", "off")),
    ])
    #expect(Self.machine("dev:123456", "off").count + ImageRow.slotBytes == 25)
    #expect(Self.read(row) == (["0 dev:123456 off", "5 b on", "2047 c off"], false))
    #expect(Self.read([]) == ([], false))
    #expect(ImageRow.row(of: 2047) == 0 && ImageRow.row(of: 2048) == 1)
    #expect(ImageRow.cell(of: 2049) == 1)
  }

  @Test("cells out of order, twice, past the row's end, or cut short are damage")
  func damage() {
    let a = Self.machine("a", "on")
    #expect(Self.read(Self.body([(3, a), (2, a)])) == (["3 a on"], true))
    #expect(Self.read(Self.body([(3, a), (3, a)])) == (["3 a on"], true))
    #expect(Self.read(Self.body([(1, a), (2048, a)])) == (["1 a on"], true))
    let whole = Self.body([(1, a), (2, a)])
    // Cut inside the second cell's slot, then inside its machine.
    #expect(Self.read(Array(whole.dropLast(a.count + 1))) == (["1 a on"], true))
    #expect(Self.read(Array(whole.dropLast(1))) == (["1 a on"], true))
  }

  /// A change of a slot in a journal: a `toggle` saved, the slot's machine deleted, or its
  /// state alone (a state record).
  enum Change {
    case save(name: String, state: String)
    case delete
    case state(String)
  }

  /// `apply(records:to:)` of saves (a name and state) and deletes (nil).
  static func apply(
    _ changes: [(slot: UInt32, machine: (name: String, state: String)?)], to old: [Int: [UInt8]]
  ) -> (rows: [Int: [String]], damaged: [Int]) {
    apply(
      records: changes.map {
        ($0.slot, $0.machine.map { .save(name: $0.name, state: $0.state) } ?? .delete)
      },
      to: old)
  }

  /// The rows a journal of `changes` (in journal order) makes of `old` (rows by number): each
  /// row's cells read back, rows left empty absent; and the rows whose old body is damaged or
  /// that a state record of an empty slot damages.
  static func apply(
    records changes: [(slot: UInt32, change: Change)], to old: [Int: [UInt8]]
  ) -> (rows: [Int: [String]], damaged: [Int]) {
    let records = ByteBuffer()
    for (slot, change) in changes {
      switch change {
      case .save(let name, let state):
        JournalFormat.append(
          .save(StoredMachine(name: name, kind: "toggle", state: state)), slot: slot, epoch: 1,
          to: records)
      case .delete:
        JournalFormat.append(.delete(name: "gone"), slot: slot, epoch: 1, to: records)
      case .state(let state):
        JournalFormat.appendState(slot: slot, state: state, epoch: 1, to: records)
      }
    }
    let journal = JournalFormat.header(epoch: 1) + records.bytes
    return journal.withUnsafeBytes { bytes in
      let rows = try! RowChanges(journal: bytes)
      #expect(rows.count == changes.count)
      var result: [Int: [String]] = [:]
      var damaged: [Int] = []
      let body = ByteBuffer()
      rows.forEachRow { row in
        let machines = (old[row] ?? []).withUnsafeBytes { rows.rewrite(row, old: $0, into: body) }
        guard let machines else { return damaged.append(row) }
        let read = read(body.bytes)
        #expect(!read.damaged && read.cells.count == machines)
        if machines > 0 { result[row] = read.cells }
      }
      return (result, damaged)
    }
  }

  @Test("the latest change of a slot wins; a slot freed and taken again holds the new machine")
  func latestWins() {
    let old = [0: Self.body([(1, Self.machine("x", "on")), (7, Self.machine("y", "on"))])]
    let result = Self.apply(
      [
        (7, ("a", "on")), (7, nil), (7, ("b", "on")), (1, nil), (2048 + 3, ("a", "on")),
        (2048 + 3, ("a", "off")),
      ], to: old)
    #expect(result.rows == [0: ["7 b on"], 1: ["3 a off"]] && result.damaged.isEmpty)
    // A row whose machines are all deleted is left empty: absent.
    #expect(Self.apply([(1, nil), (7, nil)], to: old).rows == [:])
    // A damaged old body is reported, not rewritten.
    let damaged = Self.apply([(9, ("a", "on"))], to: [0: Array(old[0]!.dropLast(1))])
    #expect(damaged.rows == [:] && damaged.damaged == [0])
  }

  @Test("a state record changes the state of its slot's last save, in the journal or the row")
  func stateRecords() {
    let old = [0: Self.body([(1, Self.machine("x", "on")), (7, Self.machine("y", "on"))])]
    let result = Self.apply(
      records: [
        (1, .state("off")), (7, .save(name: "b", state: "on")), (7, .state("mid")),
        (7, .state("off")), (9, .save(name: "c", state: "on")), (9, .state("off")),
        (9, .save(name: "c", state: "new")), (2048 + 3, .save(name: "d", state: "on")),
        (2048 + 3, .state("off")), (2048 + 3, .delete),
      ], to: old)
    #expect(result.rows == [0: ["1 x off", "7 b off", "9 c new"]] && result.damaged.isEmpty)
    // A state record of a slot without a machine is damage, whether never saved or deleted.
    #expect(Self.apply(records: [(5, .state("on"))], to: old).damaged == [0])
    #expect(Self.apply(records: [(1, .delete), (1, .state("on"))], to: old).damaged == [0])
    // A machine with timers keeps them under a new state.
    let timers = [
      StoredTimer(
        input: "ring", repeats: false, spanNanoseconds: 5, deadlineWallNanoseconds: 9,
        remainingNanoseconds: nil, queue: 0, effectID: 3)
    ]
    let records = ByteBuffer()
    JournalFormat.append(
      .save(StoredMachine(name: "t", kind: "alarm", state: "armed", timers: timers)), slot: 4,
      epoch: 1, to: records)
    JournalFormat.appendState(slot: 4, state: "still", epoch: 1, to: records)
    let journal = JournalFormat.header(epoch: 1) + records.bytes
    journal.withUnsafeBytes { bytes in
      let rows = try! RowChanges(journal: bytes)
      let body = ByteBuffer()
      #expect(rows.rewrite(0, old: UnsafeRawBufferPointer(start: nil, count: 0), into: body) == 1)
      body.withUnsafeBytes { body in
        var reader = ImageRow.Reader(body)
        let machine = reader.next()?.machine
        #expect(machine.map { String(decoding: $0.state, as: UTF8.self) } == "still")
        #expect(machine.map { String(decoding: $0.kind, as: UTF8.self) } == "alarm")
        #expect(machine.map { StoredTimers($0.timers).map(\.timer) } == timers)
      }
    }
  }

  @Test("a record without a slot is refused, and an abandoned read stops")
  func refusals() {
    let records = ByteBuffer()
    JournalFormat.append(.delete(name: "a"), slot: 5, epoch: 1, to: records)
    let first = JournalFormat.headerSize + records.count
    // A slot no record of the version written holds (a writer's bug, under a right checksum).
    JournalFormat.append(.delete(name: "b"), slot: JournalFormat.noSlot, epoch: 1, to: records)
    let journal = JournalFormat.header(epoch: 1) + records.bytes
    journal.withUnsafeBytes { bytes in
      #expect(throws: RowChanges.Failure.unslotted(offset: first)) {
        _ = try RowChanges(journal: bytes)
      }
      let slotted = UnsafeRawBufferPointer(rebasing: bytes[..<first])
      #expect((try? RowChanges(journal: slotted))?.count == 1)
      #expect(throws: RowChanges.Failure.abandoned) {
        _ = try RowChanges(journal: slotted, abandoned: { true })
      }
    }
  }

  @Test("random saves, deletes and states over rows of machines give what a map of slots gives")
  func againstAMap() {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<20 {
      let slots = UInt32(1 + round * 700)
      var expected: [UInt32: String] = [:]
      var old: [Int: [(cell: Int, machine: [UInt8])]] = [:]
      for slot in stride(from: UInt32(0), to: slots, by: 3) {
        let name = "old\(slot)"
        old[ImageRow.row(of: slot), default: []].append(
          (ImageRow.cell(of: slot), Self.machine(name, "on")))
        expected[slot] = "\(name) on"
      }
      var changes: [(slot: UInt32, change: Change)] = []
      var touched: Set<Int> = []
      for step in 0..<Int(generator.next() % 3000) {
        let slot = UInt32(generator.next() % UInt64(slots))
        let state = step % 2 == 0 ? "on" : "off"
        switch generator.next() % 4 {
        case 0:
          changes.append((slot, .delete))
          expected[slot] = nil
        case 1:
          // A state record, for a slot that holds a machine (as the daemon writes them).
          guard let machine = expected[slot] else { continue }
          let name = machine.split(separator: " ")[0]
          // Short parts (numbered by the pass: up to `ShortParts.capacity` of them, past
          // which they are read from their records), and longer ones (always read there).
          let state = step % 5 == 0 ? "a longer state \(step)" : "s\(step)"
          changes.append((slot, .state(state)))
          expected[slot] = "\(name) \(state)"
        default:
          changes.append((slot, .save(name: "m\(step)", state: state)))
          expected[slot] = "m\(step) \(state)"
        }
        touched.insert(ImageRow.row(of: slot))
      }
      let result = Self.apply(records: changes, to: old.mapValues { Self.body($0) })
      var wanted: [Int: [String]] = [:]
      for row in touched {
        let cells = expected.keys.filter { ImageRow.row(of: $0) == row }.sorted().map {
          "\(ImageRow.cell(of: $0)) \(expected[$0]!)"
        }
        if !cells.isEmpty { wanted[row] = cells }
      }
      #expect(result.rows == wanted && result.damaged.isEmpty, "round \(round)")
    }
  }

  @Test("in a journal of 2 GiB or more, a state record past 2 GiB is read from its offset")
  func stateRecordsPastTwoGiB() throws {
    // The bytes mapped, not written: only the pages the records lie on are touched.
    let size = (1 << 31) + (1 << 16)
    let mapped = mmap(
      nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    guard let mapped, mapped != MAP_FAILED else {
      Issue.record("no 2 GiB mapping")
      return
    }
    defer { munmap(mapped, size) }
    let bytes = mapped.assumingMemoryBound(to: UInt8.self)
    var end = 0
    func put(_ data: [UInt8], at offset: Int) {
      data.withUnsafeBufferPointer {
        (bytes + offset).update(from: $0.baseAddress!, count: $0.count)
      }
    }
    put(JournalFormat.header(epoch: 1), at: 0)
    // A save of slot 5, then a delete of slot 6 long enough to end past 2 GiB (a reader of
    // the changes takes only its tag and its last four bytes), then a state record of slot 5.
    let records = ByteBuffer()
    JournalFormat.append(
      .save(StoredMachine(name: "a", kind: "toggle", state: "off")), slot: 5, epoch: 1,
      to: records)
    put(records.bytes, at: JournalFormat.headerSize)
    let filler = JournalFormat.headerSize + records.count
    let payload = (1 << 31) - filler
    withUnsafeBytes(of: UInt32(payload).littleEndian) { put(Array($0), at: filler) }
    bytes[filler + JournalFormat.recordHeaderSize] = JournalFormat.deleteTag
    end = filler + JournalFormat.recordHeaderSize + payload
    withUnsafeBytes(of: UInt32(6).littleEndian) { put(Array($0), at: end - 4) }
    #expect(end >= 1 << 31)
    let state = ByteBuffer()
    JournalFormat.appendState(slot: 5, state: "on", epoch: 1, to: state)
    put(state.bytes, at: end)
    end += state.count
    let journal = UnsafeRawBufferPointer(start: mapped, count: end)
    let changes = try RowChanges(journal: journal)
    #expect(changes.count == 3)
    var seen: [String] = []
    _ = changes.takeStates(ofRow: 0) { cell, replaced, state, number in
      let text = state.map { String(decoding: $0, as: UTF8.self) } ?? "-"
      seen.append("\(cell) \(replaced) \(text) \(number.map(String.init) ?? "-")")
      return false
    }
    #expect(seen == ["5 true on -", "6 true - -"])
  }
}
