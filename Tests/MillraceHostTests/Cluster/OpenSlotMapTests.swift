import Foundation
import MillraceWire
import Testing

@testable import MillraceHost

/// Slots open for a move in the cluster map file (`migrating`, `importing`), and the file a
/// node writes at `CLUSTER SETSLOT`, which must read back as the same map.
@Suite struct OpenSlotMapTests {
  typealias Nodes = ClusterMapReaderTests

  /// The three-way split with `lines` added, read as node a's map.
  func map(_ lines: String...) throws -> ClusterMap {
    try ClusterMapReader.parse(
      Nodes.threeNodes() + "\n" + lines.joined(separator: "\n"), file: "c.conf")
  }

  /// The problems of the three-way split with `lines` added.
  func problems(_ lines: String...) -> [String] {
    ClusterMapReaderTests().problems(Nodes.threeNodes() + "\n" + lines.joined(separator: "\n"))
  }

  @Test func readsMigratingAndImportingSlotsAndRanges() throws {
    let map = try map("migrating 10-12 \(Nodes.b)", "importing 6000 \(Nodes.c)")
    #expect(map.migrating == [10: 1, 11: 1, 12: 1])
    #expect(map.importing == [6000: 2])
    #expect(map.hasOpenSlots)
    #expect(try !self.map().hasOpenSlots)
  }

  @Test func refusesWhatCannotBeOpen() {
    #expect(
      problems("migrating 6000 \(Nodes.b)") == ["6: slot 6000 is migrating but is not this node's"])
    #expect(
      problems("importing 5 \(Nodes.b)") == ["6: slot 5 is importing but is this node's already"])
    #expect(
      problems("migrating 5 \(Nodes.a)") == ["6: migrating names this node itself (\(Nodes.a))"])
    #expect(
      problems("importing 6000 \(String(repeating: "d", count: 40))")
        == [
          "6: importing names node \(String(repeating: "d", count: 40)), which no node line declares"
        ])
    #expect(
      problems("migrating 5 \(Nodes.b)", "migrating 4-6 \(Nodes.c)")
        == ["7: slot 5 is already migrating or importing on line 6"])
    #expect(
      problems("migrating 5") == ["6: a migrating line is: migrating <slot> | <first>-<last> <id>"])
    #expect(problems("importing x \(Nodes.b)").first?.hasPrefix("6: \"x\" is not a slot") == true)
  }

  @Test func assigningASlotClosesIt() throws {
    var map = try map("migrating 10 \(Nodes.b)", "importing 6000 \(Nodes.b)")
    map.assign(10, to: 1)
    map.assign(6000, to: 0)
    #expect(!map.hasOpenSlots)
    #expect(map.ownerIndex(of: 10) == 1 && map.isMine(6000))
  }

  @Test func theWrittenFileReadsBackAsTheSameMap() throws {
    var map = try map(
      "migrating 10-12 \(Nodes.b)", "migrating 14 \(Nodes.b)", "importing 6000 \(Nodes.c)")
    map.assign(20, to: 2)
    let text = ClusterMapWriter.text(of: map)
    #expect(text.contains("migrating 10-12 \(Nodes.b)\nmigrating 14 \(Nodes.b)\n"))
    #expect(text.contains("node \(Nodes.c) 127.0.0.1:7003 20 10923-16383\n"))
    #expect(try ClusterMapReader.parse(text, file: "w.conf") == map)
    // Over the old file, flushed or not.
    let path = NSTemporaryDirectory() + "mr-map-\(UUID().uuidString).conf"
    defer { try? FileManager.default.removeItem(atPath: path) }
    for sync in [true, false] {
      try "old".write(toFile: path, atomically: false, encoding: .utf8)
      try ClusterMapWriter.write(map, to: path, sync: sync)
      #expect(try ClusterMapReader.read(path: path) == map)
    }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
      .filter { $0.hasPrefix((path as NSString).lastPathComponent + ".tmp") }
    #expect(leftovers.isEmpty)
  }
}

/// `DUMP` payloads: a machine's record, whole or refused.
@Suite struct MachineDumpTests {
  static let machine = StoredMachine(
    name: "door:1", kind: "door", state: "opened",
    timers: [
      StoredTimer(
        input: "autoClose", repeats: false, spanNanoseconds: 5_000_000_000,
        deadlineWallNanoseconds: 1_800_000_000_000_000_000, remainingNanoseconds: 4_000_000_000,
        queue: 0, effectID: 7)
    ])

  @Test func aDumpReadsBackWhole() throws {
    let bytes = MachineDump.encode(Self.machine)
    #expect(bytes.withUnsafeBytes(MachineDump.decode) == Self.machine)
  }

  @Test("a dump is a version 5 record (no slot), which daemons writing version 5 read too")
  func aDumpIsVersion5() {
    let bytes = MachineDump.encode(Self.machine)
    #expect(Array(bytes.prefix(8)) == Array("MRJRNL05".utf8))
    // A version 6 record of the same machine, read as a dump, is the same machine.
    let records = ByteBuffer()
    JournalFormat.append(.save(Self.machine), slot: 9, epoch: 0, to: records)
    let slotted = JournalFormat.header(epoch: 0) + records.bytes
    #expect(slotted.count == bytes.count + JournalFormat.slotSize)
    #expect(slotted.withUnsafeBytes(MachineDump.decode) == Self.machine)
  }

  @Test("a dump an earlier daemon wrote (journal version 3, FNV-1a) still reads; damaged, not")
  func aVersion3DumpReads() {
    var bytes = JournalVersion4.journal([.save(Self.machine)], epoch: 0, version: 3)
    #expect(bytes.withUnsafeBytes(MachineDump.decode) == Self.machine)
    bytes[bytes.count - 1] ^= 0x10
    #expect(bytes.withUnsafeBytes(MachineDump.decode) == nil)
  }

  @Test func anyDamageIsRefused() {
    let bytes = MachineDump.encode(Self.machine)
    for index in bytes.indices {
      var damaged = bytes
      damaged[index] ^= 0x10
      #expect(damaged.withUnsafeBytes(MachineDump.decode) == nil, "byte \(index) changed")
    }
    #expect(Array(bytes.dropLast()).withUnsafeBytes(MachineDump.decode) == nil)
    #expect((bytes + [0]).withUnsafeBytes(MachineDump.decode) == nil)
    #expect(
      (bytes + MachineDump.encode(Self.machine).dropFirst(16)).withUnsafeBytes(MachineDump.decode)
        == nil)
  }
}
