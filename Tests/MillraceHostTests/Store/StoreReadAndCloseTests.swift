import Foundation
import Millrace
import MillraceWire
import Testing

@testable import MillraceHost

@Suite("Store streaming read and close")
struct StoreReadAndCloseTests {
  let directory = StoreFixtures.directory("millrace-read")

  let machines = [
    StoredMachine(
      name: "a", kind: "auth", state: "loggingIn",
      timers: [
        StoreFixtures.loginOK,
        StoredTimer(
          input: "tick", repeats: true, spanNanoseconds: 5_000_000, deadlineWallNanoseconds: nil,
          queue: 0, effectID: 9),
      ]),
    StoredMachine(name: "dev:0", kind: "toggle", state: "off"),
    StoredMachine(name: "ü-名", kind: "", state: "état"),
  ]

  /// A store holding `machines`, some checkpointed and some in the journal only.
  func filledStore() throws -> MachineStore {
    let store = try MachineStore(directory: directory, durability: .batched)
    try store.save(machines[0])
    try store.commit()
    try store.checkpoint()
    try store.save(machines[1])
    try store.save(machines[2])
    try store.commit()
    return store
  }

  @Test("forEach streams the rows loadAll returns, with the journal's latest changes in")
  func forEachEqualsLoadAll() throws {
    let store = try filledStore()
    var rows: [StoredMachine] = []
    var names: [[UInt8]] = []
    try store.forEach { row in
      rows.append(row.machine)
      names.append(Array(row.name))
      #expect(row.timers.isEmpty == (row.machine.timers.isEmpty))
    }
    #expect(rows == machines)
    #expect(names == machines.map { Array($0.name.utf8) })
    #expect(try store.loadAll() == rows)
    #expect(try store.count() == machines.count)
  }

  @Test("an error thrown by forEach's body stops the read and comes out as it is")
  func bodyError() throws {
    struct Refused: Error {}
    let store = try filledStore()
    var seen = 0
    #expect(throws: Refused.self) {
      try store.forEach { _ in
        seen += 1
        throw Refused()
      }
    }
    #expect(seen == 1)
    // The read was ended: the next one starts from the first row again.
    #expect(try store.loadAll() == machines)
  }

  @Test("a row whose timers do not decode is a store error naming the machine")
  func damagedTimers() throws {
    do {
      let store = try filledStore()
      try store.close()
    }
    // The image's one row, written again with machine a (in cell 0) and its timers damaged: a
    // flags byte that no timer has.
    let body = ByteBuffer()
    ImageRow.appendCell(0, to: body)
    let (name, kind, state, timers): ([UInt8], [UInt8], [UInt8], [UInt8]) = (
      Array("a".utf8), Array("auth".utf8), Array("loggingIn".utf8), [0x08]
    )
    name.withUnsafeBytes { name in
      kind.withUnsafeBytes { kind in
        state.withUnsafeBytes { state in
          timers.withUnsafeBytes { timers in
            ImageChunk.append(
              ImageChunk.Entry(name: name, kind: kind, state: state, timers: timers), to: body)
          }
        }
      }
    }
    try StoreImageTests.overwriteRows(in: directory, with: body.bytes)
    let store = try MachineStore(directory: directory, durability: .batched)
    let error = #expect(throws: StoreError.self) { try store.forEach { _ in } }
    #expect(error?.message.contains("timers of machine a") == true)
  }

  @Test("close checkpoints the journal and empties SQLite's log; commits are refused after it")
  func close() throws {
    let store = try filledStore()
    let checkpoints = store.checkpoints
    try store.close()
    #expect(store.checkpoints == checkpoints + 1)
    try store.close()
    let wal = directory + "/machines.sqlite3-wal"
    let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
    #expect(walSize == 0)
    // What the journal holds of the current epoch: nothing.
    let journal = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: directory + "/machines.journal")))
    let epoch = journal.withUnsafeBytes { JournalFormat.header(of: $0)?.epoch } ?? 0
    #expect(journal.withUnsafeBytes { JournalFormat.decode($0, epoch: epoch) }.changes.isEmpty)
    try store.save(StoredMachine(name: "late", kind: "toggle", state: "on"))
    #expect(throws: StoreError.self) { try store.commit() }
    // Reads still work on the closed store, and a new one (once it is released) reads the same.
    #expect(try store.loadAll() == machines)
  }

  @Test("a closed store, released, is whole for the next opener")
  func reopenAfterClose() throws {
    do {
      let store = try filledStore()
      try store.close()
    }
    #expect(try MachineStore(directory: directory, durability: .batched).loadAll() == machines)
  }

  @Test(
    "a timer not saved again at close keeps its deadline and the time it had left: the clock rule holds"
  )
  func timerNotSavedAgain() throws {
    // Saved at wall-clock second 1,000 with 10 s left; the store closed later without saving
    // it again (nothing changed), and restarted at various wall-clock readings.
    let saved: Int64 = 1_000_000_000_000
    let timer = StoredTimer(
      input: "close", repeats: false, spanNanoseconds: 10_000_000_000,
      deadlineWallNanoseconds: saved + 10_000_000_000, remainingNanoseconds: 10_000_000_000,
      queue: 0, effectID: 1)
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try store.save(StoredMachine(name: "door", kind: "door", state: "open", timers: [timer]))
      try store.commit()
      try store.close()
    }
    var restored: [StoredTimer] = []
    try MachineStore(directory: directory, durability: .batched).forEach { row in
      restored += row.timers.map(\.timer)
    }
    #expect(restored == [timer])
    let start = Instant(nanoseconds: 1 << 62)
    func deadline(atWall wall: Int64) -> Instant? {
      HostClock(monotonic: start, wallNanoseconds: wall).restoredDeadline(of: restored[0])
    }
    // 4 s after the save (running, stopped, down): 6 s left, by the wall clock.
    #expect(deadline(atWall: saved + 4_000_000_000) == start.advanced(by: .seconds(6)))
    // A wall clock set back an hour: never longer than the 10 s it had left at the save.
    #expect(deadline(atWall: saved - 3_600_000_000_000) == start.advanced(by: .seconds(10)))
    // Past its deadline: at once.
    #expect(deadline(atWall: saved + 20_000_000_000) == start)
  }
}
