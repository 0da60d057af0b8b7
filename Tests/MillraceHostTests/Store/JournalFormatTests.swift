import CChecksum
import Foundation
import MillraceUV
import MillraceWire
import Testing

@testable import MillraceHost

@Suite("Journal format")
struct JournalFormatTests {
  let changes: [JournalChange] = [
    .save(
      StoredMachine(
        name: "door-1", kind: "door", state: "open",
        timers: [
          StoredTimer(
            input: "close", repeats: false, spanNanoseconds: 5_000_000_000,
            deadlineWallNanoseconds: 1_800_000_000_000_000_000, remainingNanoseconds: 4_000_000_000,
            queue: 2, effectID: 7),
          StoredTimer(
            input: "tick", repeats: true, spanNanoseconds: 1_000_000, deadlineWallNanoseconds: nil,
            queue: 0, effectID: .max),
          // As records were written before the time remaining was kept.
          StoredTimer(
            input: "beep", repeats: true, spanNanoseconds: 2_000_000,
            deadlineWallNanoseconds: 1_800_000_000_000_000_001, queue: 1, effectID: 3),
        ])),
    .delete(name: "gone"),
    .save(StoredMachine(name: "ü", kind: "", state: "état")),
  ]

  /// The header and `changes` as one journal in `epoch`.
  func journal(_ changes: ArraySlice<JournalChange>? = nil, epoch: UInt64 = 1) -> [UInt8] {
    let records = ByteBuffer()
    for change in changes ?? self.changes[...] {
      JournalFormat.append(change, slot: 0, epoch: epoch, to: records)
    }
    return JournalFormat.header(epoch: epoch) + records.bytes
  }

  func decode(_ bytes: [UInt8], epoch: UInt64 = 1, version: Int = JournalFormat.version) -> (
    changes: [JournalChange], length: Int, cutOff: Bool
  ) {
    bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: epoch, version: version) }
  }

  @Test("what is appended decodes to the same changes, and spans the whole journal")
  func roundTrip() {
    let bytes = journal()
    let (decoded, length, cutOff) = decode(bytes)
    #expect(decoded == changes)
    #expect(length == bytes.count)
    #expect(!cutOff)
    // Zeros after the records (the file's room) end them as cleanly.
    #expect(decode(bytes + [UInt8](repeating: 0, count: 100)) == (changes, bytes.count, false))
  }

  @Test("a scan finds what decoding finds, without decoding, at every cut and flipped byte")
  func scanAgreesWithDecode() {
    let bytes = journal()
    for cut in JournalFormat.headerSize...bytes.count {
      var damaged = Array(bytes[..<cut])
      let (changes, length, cutOff) = decode(damaged)
      #expect(
        damaged.withUnsafeBytes { JournalFormat.scan($0, epoch: 1) } == (
          changes.count, length, cutOff
        ))
      if cut < bytes.count {
        damaged = bytes
        damaged[cut] ^= 0x80
        let (changes, length, cutOff) = decode(damaged)
        #expect(
          damaged.withUnsafeBytes { JournalFormat.scan($0, epoch: 1) } == (
            changes.count, length, cutOff
          ))
      }
    }
  }

  @Test("a text that is not UTF-8 is damage, even under a right checksum (found by fuzzing)")
  func invalidUTF8() {
    var bytes = journal([.save(StoredMachine(name: "t", kind: "toggle", state: "off"))])
    let header = JournalFormat.headerSize
    let payload = header + JournalFormat.recordHeaderSize
    // "off", then the timers' count (0) and the slot.
    let state = bytes.count - JournalFormat.slotSize - 1 - 3
    #expect(bytes[state] == UInt8(ascii: "o"))
    bytes[state] = 0xFF
    let checksum = bytes[payload...].withUnsafeBytes { JournalFormat.checksum($0) }
    withUnsafeBytes(of: checksum.littleEndian) {
      bytes.replaceSubrange(header + 8..<header + 12, with: $0)
    }
    #expect(decode(bytes) == ([], header, true))
  }

  @Test("decoding stops at the first record that is cut short, at any byte")
  func everyCut() {
    let bytes = journal()
    let ends = (0...changes.count).map { journal(changes[..<$0]).count }
    for cut in JournalFormat.headerSize...bytes.count {
      let (decoded, length, cutOff) = decode(Array(bytes[..<cut]))
      // The whole records before the cut, and nothing of the one it falls in, which is
      // reported as cut off.
      let whole = ends.lastIndex { $0 <= cut }!
      #expect(decoded == Array(changes[..<whole]), "cut at \(cut)")
      #expect(length == ends[whole], "cut at \(cut)")
      #expect(cutOff == (cut != ends[whole]), "cut at \(cut)")
    }
  }

  @Test("a flipped byte fails its record's checksum; the records before it stand")
  func damage() {
    var bytes = journal()
    let first = journal(changes[..<1])
    bytes[first.count + JournalFormat.recordHeaderSize + 1] ^= 0x40
    #expect(decode(bytes) == ([changes[0]], first.count, true))
  }

  @Test("a length beyond the limit is taken for damage, not read")
  func hugeLength() {
    var bytes = JournalFormat.header(epoch: 1)
    for field in [UInt32(JournalFormat.maximumPayload + 1), 1, 0] {
      withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) }
    }
    bytes.append(contentsOf: [1, 2, 3])
    #expect(decode(bytes) == ([], JournalFormat.headerSize, true))
  }

  @Test("a journal of version 2 (timers in their fixed-width form) still reads")
  func version2() {
    let bytes =
      JournalFormat.header(epoch: 4, version: 2) + JournalVersion2.records(changes, epoch: 4)
    let header = bytes.withUnsafeBytes { JournalFormat.header(of: $0) }
    #expect(header?.epoch == 4)
    #expect(header?.version == 2)
    #expect(decode(bytes, epoch: 4, version: 2) == (changes, bytes.count, false))
    // Read as the current version, the same bytes are damage, not other changes.
    #expect(decode(bytes, epoch: 4).changes.isEmpty)
  }

  @Test(
    "journals of versions 3 and 4 (UInt32 counts) still read; read as another version, damage",
    arguments: [3, 4])
  func version3And4(_ version: Int) {
    let bytes = JournalVersion4.journal(changes, epoch: 4, version: version)
    #expect(bytes.withUnsafeBytes { JournalFormat.header(of: $0) }?.version == version)
    #expect(decode(bytes, epoch: 4, version: version) == (changes, bytes.count, false))
    #expect(decode(bytes, epoch: 4).changes.isEmpty)
    #expect(decode(bytes, epoch: 4, version: 7 - version).changes.isEmpty)
    // The current version's records, the other way round.
    #expect(decode(journal(epoch: 4), epoch: 4, version: version).changes.isEmpty)
  }

  @Test("a journal of version 5 (records without a slot) still reads; read as 6, damage")
  func version5() {
    let records = ByteBuffer()
    for change in changes { JournalFormat.append(change, slot: nil, epoch: 4, to: records) }
    let bytes = JournalFormat.header(epoch: 4, version: 5) + records.bytes
    #expect(bytes.withUnsafeBytes { JournalFormat.header(of: $0) }?.version == 5)
    #expect(decode(bytes, epoch: 4, version: 5) == (changes, bytes.count, false))
    #expect(decode(bytes, epoch: 4).changes.isEmpty)
    #expect(decode(journal(epoch: 4), epoch: 4, version: 5).changes.isEmpty)
  }

  @Test("a record of the version written ends with its slot; one of version 5 reads as none")
  func recordsCarryTheirSlot() {
    let records = ByteBuffer()
    let machine = StoredMachine(name: "door-1", kind: "door", state: "open")
    JournalFormat.append(.save(machine), slot: 70_000, epoch: 1, to: records)
    JournalFormat.append(.delete(name: "gone"), slot: 3, epoch: 1, to: records)
    JournalFormat.append(
      .save(StoredMachine(name: "x", kind: "k", state: "s")), slot: 0, epoch: 1, to: records)
    let bytes = JournalFormat.header(epoch: 1) + records.bytes
    var slots: [UInt32] = []
    _ = bytes.withUnsafeBytes { bytes in
      JournalFormat.forEachRecord(bytes, epoch: 1) { slots.append($0.slot) }
    }
    #expect(slots == [70_000, 3, 0])
    let older = ByteBuffer()
    JournalFormat.append(.save(machine), slot: nil, epoch: 1, to: older)
    let version5 = JournalFormat.header(epoch: 1, version: 5) + older.bytes
    let slot5 = version5.withUnsafeBytes { bytes in
      JournalFormat.record(
        UnsafeRawBufferPointer(
          rebasing: bytes[(JournalFormat.headerSize + JournalFormat.recordHeaderSize)...]),
        version: 5)?.slot
    }
    #expect(slot5 == JournalFormat.noSlot)
    // The slot is the payload's last four bytes, little-endian.
    let first = JournalFormat.headerSize + JournalFormat.recordHeaderSize
    let length = bytes.withUnsafeBytes {
      Int(
        UInt32(
          littleEndian: $0.loadUnaligned(fromByteOffset: JournalFormat.headerSize, as: UInt32.self))
      )
    }
    #expect(Array(bytes[first + length - 4..<first + length]) == [0x70, 0x11, 0x01, 0x00])
  }

  @Test("a save of the version written holds its machine as an image chunk does, to be copied")
  func saveIsTheChunksMachine() {
    let machine = StoredMachine(name: "door-1", kind: "door", state: "open", timers: [])
    let bytes = journal([.save(machine), .delete(name: "gone")])
    var records: [JournalRecord] = []
    _ = bytes.withUnsafeBytes { bytes in
      JournalFormat.forEachRecord(bytes, epoch: 1) { records.append($0) }
    }
    let chunk = ByteBuffer()
    ImageChunk.append(
      ImageChunk.Entry(
        name: records[0].name, kind: records[0].kind, state: records[0].state,
        timers: records[0].timers), to: chunk)
    #expect(Array(records[0].encoded) == chunk.bytes)
    #expect(
      Array(records[0].encoded) == [6] + Array("door-1".utf8) + [4] + Array("door".utf8) + [4]
        + Array("open".utf8) + [0])
    #expect(records[1].isDelete && records[1].encoded.isEmpty)
  }

  @Test("a state record reads back from version 7, is damage in version 6, and ends decoding")
  func stateRecord() {
    let records = ByteBuffer()
    JournalFormat.append(
      .save(StoredMachine(name: "d", kind: "door", state: "open")), slot: 3, epoch: 1,
      to: records)
    let first = JournalFormat.headerSize + records.count
    JournalFormat.appendState(slot: 3, state: "shut", epoch: 1, to: records)
    // 12 bytes of header, the tag, the state's count and bytes, the slot.
    #expect(JournalFormat.headerSize + records.count - first == 12 + 1 + 1 + 4 + 4)
    for version in [6, 7] {
      let bytes = JournalFormat.header(epoch: 1, version: version) + records.bytes
      var read: [(state: Bool, slot: UInt32, text: String)] = []
      let scanned = bytes.withUnsafeBytes { bytes in
        JournalFormat.forEachRecord(bytes, epoch: 1, version: version) {
          read.append(($0.isStateChange, $0.slot, String(decoding: $0.state, as: UTF8.self)))
        }
      }
      if version == 7 {
        #expect(scanned == (2, bytes.count, false))
        #expect(read.map(\.state) == [false, true] && read[1].slot == 3 && read[1].text == "shut")
      } else {
        #expect(scanned == (1, first, true))
      }
      // Decoding into changes (for journals of earlier versions) stops at it.
      let decoded = bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1, version: version) }
      #expect(decoded.changes.count == 1 && decoded.length == first && decoded.cutOff)
    }
  }

  @Test("the checksum is CRC-32C, the same with the processor's instruction as by the table")
  func checksumIsCRC32C() {
    #expect(Array("123456789".utf8).withUnsafeBytes { JournalFormat.checksum($0) } == 0xE306_9283)
    #expect(JournalFormat.checksum(UnsafeRawBufferPointer(start: nil, count: 0)) == 0)
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
    bytes.withUnsafeBytes { all in
      for start in 0..<8 {
        for count in 0...(all.count - start) {
          let part = UnsafeRawBufferPointer(rebasing: all[start..<start + count])
          #expect(
            JournalFormat.checksum(part) == millrace_crc32c_portable(part.baseAddress, count),
            "\(count) bytes from \(start)")
        }
      }
    }
  }

  @Test("a header of another version, or none, is not a journal's")
  func unknownHeader() {
    for magic in ["MRJRNL01", "MRJRNL08", "not a jo"] {
      let bytes = Array(magic.utf8) + [UInt8](repeating: 0, count: 8)
      #expect(bytes.withUnsafeBytes { JournalFormat.header(of: $0) } == nil, "\(magic)")
    }
  }

  @Test("records of an earlier epoch after the current ones end them, as the file's end would")
  func earlierEpoch() {
    // Epoch 2 wrote one record over the start of epoch 1's three.
    var bytes = journal(epoch: 1)
    let current = journal(changes[..<1], epoch: 2)
    bytes.replaceSubrange(0..<current.count, with: current)
    let (decoded, length, cutOff) = decode(bytes, epoch: 2)
    #expect(decoded == [changes[0]])
    #expect(length == current.count)
    // The same change made a record of the same size, so epoch 1's second record follows:
    // the end, not a record cut off.
    #expect(!cutOff)
    #expect(bytes.withUnsafeBytes { JournalFormat.header(of: $0) }?.epoch == 2)
  }
}

@Suite("Turn journal")
struct TurnJournalTests {
  @Test("a second opener of a journal is refused while the first holds it, not after")
  func exclusive() throws {
    let path = NSTemporaryDirectory() + "millrace-journal-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    var first: TurnJournal? = try TurnJournal(path: path, sync: false)
    let refused = #expect(throws: StoreError.self) { try TurnJournal(path: path, sync: false) }
    #expect(refused?.message.contains("locked") == true)
    #expect(first?.length == JournalFormat.headerSize)
    first = nil
    #expect(try TurnJournal(path: path, sync: false).length == JournalFormat.headerSize)
  }

  @Test("a lock held for milliseconds, as by a child process between fork and exec, is waited for")
  func briefLockIsWaitedFor() throws {
    let path = NSTemporaryDirectory() + "millrace-journal-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    // Another open file description of the journal, locked: flock conflicts with it as with
    // another process's, and it is released 20 ms from now.
    let holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
    Thread.detachNewThread {
      usleep(20_000)
      close(holder)
    }
    #expect(try TurnJournal(path: path, sync: false).length == JournalFormat.headerSize)
  }

  @Test(
    "appends reach the file (through the mapping or pwrite), also past the first room, and reopen",
    arguments: [true, false])
  func appendsGrowAndRemap(mapsFile: Bool) throws {
    let path = NSTemporaryDirectory() + "millrace-journal-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let big = String(repeating: "x", count: 700 * 1024)
    let changes: [JournalChange] = [
      .save(StoredMachine(name: "a", kind: "k", state: big)),
      .save(StoredMachine(name: "b", kind: "k", state: big)),
      .save(StoredMachine(name: "a", kind: "k", state: "small")),
    ]
    var journal: TurnJournal? = try TurnJournal(path: path, sync: false, mapsFile: mapsFile)
    #expect(journal!.isMapped == mapsFile)
    for change in changes {
      let records = ByteBuffer()
      JournalFormat.append(change, slot: 0, epoch: journal!.epoch, to: records)
      try journal!.append(records)
    }
    // The second record needed more room than the first 1 MiB: the file grew (and was mapped
    // again), and every byte is in the file (read with read(2), not through the mapping).
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(bytes.count == 2 * TurnJournal.growth)
    #expect(journal!.isMapped == mapsFile)
    #expect(bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1) }.changes == changes)
    #expect(journal!.withRecords { JournalFormat.decode($0, epoch: 1).changes } == changes)
    journal = nil
    let reopened = try TurnJournal(path: path, sync: false)
    #expect(reopened.recover() == (3, false))
    #expect(reopened.recoveredChanges() == changes)
    #expect(reopened.length == bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1) }.length)
  }

  /// Kilobytes of this process's memory mapping `path` that are resident (`/proc/self/smaps`).
  static func residentKilobytes(of path: String) throws -> Int {
    // Read to the end: a /proc file's size reads as 0, which whole-file readers trust.
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
    let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    var inMapping = false
    var total = 0
    for line in smaps.split(separator: "\n") {
      if let first = line.first, first.isHexDigit, line.contains("-") {
        inMapping = line.hasSuffix(path)
      } else if inMapping, line.hasPrefix("Rss:") {
        total += Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
      }
    }
    return total
  }

  @Test("a long epoch keeps only its latest records in memory, and reads back whole")
  func residentWindow() throws {
    let path = NSTemporaryDirectory() + "millrace-journal-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let journal = try TurnJournal(path: path, sync: false)
    // The room first, in an epoch of its own: then the appends below grow nothing (a grown
    // file is mapped anew, which takes every page out anyway).
    let state = String(repeating: "y", count: 100 * 1024)
    let window = TurnJournal.residentWindow
    var changes: [JournalChange] = []
    for round in 0..<2 {
      for index in 0..<(5 * window / (100 * 1024)) {
        let records = ByteBuffer()
        let change = JournalChange.save(
          StoredMachine(name: "m\(index)", kind: "k", state: "\(round)" + state))
        JournalFormat.append(change, slot: 0, epoch: journal.epoch, to: records)
        try journal.append(records)
        if round == 1 { changes.append(change) }
      }
      if round == 0 { try journal.reset(epoch: journal.epoch + 1, shrinking: false) }
    }
    // Five windows written, at most two (and a page) resident.
    #expect(try Self.residentKilobytes(of: path) <= (2 * window + 4096) / 1024)
    #expect(try Self.residentKilobytes(of: path) >= window / 1024)
    #expect(
      journal.withRecords { JournalFormat.decode($0, epoch: journal.epoch).changes } == changes)
    // And the file holds them, as a restart after kill -9 reads it.
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let read = file.withUnsafeBytes { JournalFormat.decode($0, epoch: journal.epoch) }
    #expect(read.changes == changes)
    #expect(!read.cutOff)
  }

  @Test("a new epoch takes the older records' pages out of the process's memory")
  func resetReleasesResidentPages() throws {
    let path = NSTemporaryDirectory() + "millrace-journal-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let journal = try TurnJournal(path: path, sync: false)
    let records = ByteBuffer()
    let state = String(repeating: "y", count: 600 * 1024)
    JournalFormat.append(
      .save(StoredMachine(name: "a", kind: "k", state: state)), slot: 0, epoch: journal.epoch,
      to: records)
    try journal.append(records)
    #expect(try Self.residentKilobytes(of: path) >= 600)
    try journal.reset(epoch: journal.epoch + 1, shrinking: false)
    #expect(try Self.residentKilobytes(of: path) <= 8)
    // What follows still appends and reads back.
    let next = ByteBuffer()
    let change = JournalChange.save(StoredMachine(name: "b", kind: "k", state: "on"))
    JournalFormat.append(change, slot: 0, epoch: journal.epoch, to: next)
    try journal.append(next)
    #expect(
      journal.withRecords { JournalFormat.decode($0, epoch: journal.epoch).changes } == [change])
  }
}
