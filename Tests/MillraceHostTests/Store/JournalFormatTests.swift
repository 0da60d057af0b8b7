import Foundation
import MillraceUV
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
            deadlineWallNanoseconds: 1_800_000_000_000_000_000, queue: 2, effectID: 7),
          StoredTimer(
            input: "tick", repeats: true, spanNanoseconds: 1_000_000, deadlineWallNanoseconds: nil,
            queue: 0, effectID: .max),
        ])),
    .delete(name: "gone"),
    .save(StoredMachine(name: "ü", kind: "", state: "état")),
  ]

  /// The header and `changes` as one journal.
  func journal(_ changes: ArraySlice<JournalChange>? = nil) -> [UInt8] {
    let records = ByteBuffer()
    for change in changes ?? self.changes[...] { JournalFormat.append(change, to: records) }
    return JournalFormat.header + records.bytes
  }

  @Test("what is appended decodes to the same changes, and spans the whole journal")
  func roundTrip() {
    let bytes = journal()
    let (decoded, length) = bytes.withUnsafeBytes { JournalFormat.decode($0) }
    #expect(decoded == changes)
    #expect(length == bytes.count)
  }

  @Test("decoding stops at the first record that is cut short, at any byte")
  func everyCut() {
    let bytes = journal()
    let ends = (0...changes.count).map { journal(changes[..<$0]).count }
    for cut in JournalFormat.header.count...bytes.count {
      let (decoded, length) = Array(bytes[..<cut]).withUnsafeBytes { JournalFormat.decode($0) }
      // The whole records before the cut, and nothing of the one it falls in.
      let whole = ends.lastIndex { $0 <= cut }!
      #expect(decoded == Array(changes[..<whole]), "cut at \(cut)")
      #expect(length == ends[whole], "cut at \(cut)")
    }
  }

  @Test("a flipped byte fails its record's checksum; the records before it stand")
  func damage() {
    var bytes = journal()
    let first = journal(changes[..<1])
    bytes[first.count + JournalFormat.recordHeaderSize + 1] ^= 0x40
    let (decoded, length) = bytes.withUnsafeBytes { JournalFormat.decode($0) }
    #expect(decoded == [changes[0]])
    #expect(length == first.count)
  }

  @Test("a length beyond the limit is taken for damage, not read")
  func hugeLength() {
    var bytes = JournalFormat.header
    withUnsafeBytes(of: UInt32(JournalFormat.maximumPayload + 1).littleEndian) {
      bytes.append(contentsOf: $0)
    }
    bytes.append(contentsOf: [0, 0, 0, 0, 1, 2, 3])
    let (decoded, length) = bytes.withUnsafeBytes { JournalFormat.decode($0) }
    #expect(decoded.isEmpty)
    #expect(length == JournalFormat.header.count)
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
    #expect(first?.length == JournalFormat.header.count)
    first = nil
    #expect(try TurnJournal(path: path, sync: false).length == JournalFormat.header.count)
  }
}
