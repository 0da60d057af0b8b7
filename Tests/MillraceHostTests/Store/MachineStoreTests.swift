import Foundation
import Testing

@testable import MillraceHost

@Suite("Machine store")
struct MachineStoreTests {
  let directory = StoreFixtures.directory("millrace-store")

  let timer = StoreFixtures.loginOK

  @Test(
    "what was committed is read back by a new connection",
    arguments: [
      Durability.batched, .strict,
    ])
  func roundTrip(durability: Durability) throws {
    do {
      let store = try MachineStore(directory: directory, durability: durability)
      try store.save(StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]))
      try commit(StoredMachine(name: "d", kind: "door", state: "closed"), to: store)
    }
    let reopened = try MachineStore(directory: directory, durability: durability)
    let machines = try reopened.loadAll()
    #expect(
      machines == [
        StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]),
        StoredMachine(name: "d", kind: "door", state: "closed"),
      ])
  }

  @Test("saving replaces state and timers; delete removes both")
  func replaceAndDelete() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    try commit(
      StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]), to: store)
    var waiting = timer
    waiting.deadlineWallNanoseconds = nil
    try store.save(StoredMachine(name: "a", kind: "auth", state: "loggedIn", timers: [waiting]))
    try store.save(StoredMachine(name: "b", kind: "auth", state: "loggedOut", timers: [timer]))
    try store.delete(name: "b")
    try store.commit()
    #expect(
      try store.loadAll() == [
        StoredMachine(name: "a", kind: "auth", state: "loggedIn", timers: [waiting])
      ])
  }

  @Test("a machine saved without timers loses the ones it had, also after a reopen")
  func timersAreClearedAcrossReopen() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try commit(
        StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]), to: store)
    }
    // A new connection learns from the database which machines have timer rows.
    let store = try MachineStore(directory: directory, durability: .batched)
    try commit(StoredMachine(name: "a", kind: "auth", state: "loggedIn"), to: store)
    #expect(try store.loadAll() == [StoredMachine(name: "a", kind: "auth", state: "loggedIn")])
    // And within one connection: timers saved, then saved away, twice.
    for _ in 0..<2 {
      try commit(
        StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]), to: store)
      try commit(StoredMachine(name: "a", kind: "auth", state: "loggedIn"), to: store)
    }
    #expect(try store.loadAll() == [StoredMachine(name: "a", kind: "auth", state: "loggedIn")])
  }

  @Test("a saved row takes the new kind and state; delete then save in one turn inserts anew")
  func updateInPlaceAndReinsert() throws {
    let texts = StoredMachine(name: "ü-名", kind: "", state: "état", timers: [timer])
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try commit(StoredMachine(name: "m", kind: "auth", state: "loggedIn"), to: store)
      // A row left by a machine of another kind (say, one not restored) is overwritten whole.
      try commit(StoredMachine(name: "m", kind: "door", state: "closed"), to: store)
      #expect(try store.loadAll() == [StoredMachine(name: "m", kind: "door", state: "closed")])
      // KILL and SPAWN of one name in one turn: the delete runs first, the save inserts.
      try store.delete(name: "m")
      try commit(StoredMachine(name: "m", kind: "toggle", state: "on"), to: store)
      #expect(try store.loadAll() == [StoredMachine(name: "m", kind: "toggle", state: "on")])
      // Texts are bound in place, one after another: empty and multi-byte ones keep their bytes.
      try commit(texts, to: store)
    }
    let reopened = try MachineStore(directory: directory, durability: .batched)
    #expect(
      try reopened.loadAll() == [StoredMachine(name: "m", kind: "toggle", state: "on"), texts])
  }

  @Test("committed turns live in the journal until a checkpoint; a reopen replays them")
  func journalReplay() throws {
    let journal = directory + "/machines.journal"
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try commit(
        StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]), to: store)
      try store.save(StoredMachine(name: "a", kind: "auth", state: "loggedIn"))
      try store.save(StoredMachine(name: "b", kind: "door", state: "open"))
      try store.delete(name: "b")
      try store.commit()
      #expect(store.checkpoints == 0)
      // Dropped without a checkpoint, as a kill -9 would leave it: the turns are in the journal.
      #expect(try journalRecords(journal).count == 4)
    }
    let reopened = try MachineStore(directory: directory, durability: .batched)
    #expect(reopened.recoveryNote == nil)
    #expect(reopened.checkpoints == 1)
    #expect(try journalRecords(journal).count == 0)
    #expect(try reopened.loadAll() == [StoredMachine(name: "a", kind: "auth", state: "loggedIn")])
  }

  @Test("state records are replayed over the save they follow, in the journal or the image")
  func stateRecordsReplay() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try store.save(
        StoredMachine(name: "a", kind: "auth", state: "loggingIn", timers: [timer]), slot: 3)
      try store.commit()
      try store.checkpoint()  // a is in the image
      store.saveState(slot: 3, state: "loggedIn")
      try store.save(StoredMachine(name: "b", kind: "door", state: "open"), slot: 4)
      store.saveState(slot: 4, state: "closed")
      try store.commit()
      #expect(store.checkpoints == 1)
      // Dropped without a checkpoint, as a kill -9 would leave it.
    }
    let reopened = try MachineStore(directory: directory, durability: .batched)
    #expect(reopened.recoveryNote == nil && reopened.checkpoints == 1)
    #expect(
      try reopened.loadAll() == [
        StoredMachine(name: "a", kind: "auth", state: "loggedIn", timers: [timer]),
        StoredMachine(name: "b", kind: "door", state: "closed"),
      ])
    // A state record of a slot that holds no machine (which the daemon does not write) goes
    // into the slot's `states` row, and names no machine at a restore.
    reopened.saveState(slot: 9, state: "on")
    try reopened.commit()
    #expect(try reopened.loadAll().count == 2)
  }

  @Test("a record cut off by a crash is dropped and reported; the turns before it are kept")
  func tornTail() throws {
    let journal = directory + "/machines.journal"
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try commit(StoredMachine(name: "a", kind: "auth", state: "loggedIn"), to: store)
      try commit(StoredMachine(name: "a", kind: "auth", state: "loggingOut"), to: store)
    }
    // Damage the last record's end, as a write interrupted by kill -9 could leave it.
    var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
    let end = try journalRecords(journal).length
    bytes[end - 3] ^= 0xFF
    try bytes.write(to: URL(fileURLWithPath: journal))
    let reopened = try MachineStore(directory: directory, durability: .batched)
    #expect(reopened.recoveryNote?.contains("1 change(s) replayed") == true)
    #expect(try reopened.loadAll().map(\.state) == ["loggedIn"])
    // The journal starts clean again: later turns are replayed after the next crash.
    try commit(StoredMachine(name: "a", kind: "auth", state: "loggedOut"), to: reopened)
    #expect(try journalRecords(journal).count == 1)
  }

  @Test("a file that is not a journal is refused, not overwritten")
  func foreignJournal() throws {
    let journal = directory + "/machines.journal"
    try Data("not a journal at all".utf8).write(to: URL(fileURLWithPath: journal))
    #expect(throws: StoreError.self) {
      _ = try MachineStore(directory: directory, durability: .batched)
    }
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: journal)) == Data("not a journal at all".utf8))
  }

  @Test("enough records start a checkpoint on the worker; commits go on; the latest rows go in")
  func checkpointByRecords() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    // Half the records change distinct machines, half change one machine over and over.
    let distinct = MachineStore.checkpointRecords / 2
    for index in 0..<MachineStore.checkpointRecords {
      let name = index < distinct ? "m\(index)" : "hot"
      try store.save(
        StoredMachine(name: name, kind: "toggle", state: index.isMultiple(of: 2) ? "on" : "off"))
      #expect(store.checkpoints == 0)
      try store.commit()
    }
    // The commit that made it due started it and returned; it ends on the worker.
    store.settle()
    #expect(store.checkpoints == 1)
    try commit(StoredMachine(name: "after", kind: "toggle", state: "on"), to: store)
    let rows = try store.loadAll()
    #expect(rows.count == distinct + 2)
    let last = MachineStore.checkpointRecords - 1
    #expect(rows.first { $0.name == "hot" }?.state == (last.isMultiple(of: 2) ? "on" : "off"))
  }

  /// Saves `machine` in a turn of its own.
  private func commit(_ machine: StoredMachine, to store: MachineStore) throws {
    try store.save(machine)
    try store.commit()
  }

  /// The records of the journal's current epoch, and where they end.
  private func journalRecords(_ path: String) throws -> (count: Int, length: Int) {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    return bytes.withUnsafeBytes { bytes in
      let epoch = JournalFormat.header(of: bytes)?.epoch ?? 0
      let (changes, length, _) = JournalFormat.decode(bytes, epoch: epoch)
      return (changes.count, length)
    }
  }

  @Test("changes not committed are not kept")
  func uncommittedIsLost() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      try commit(StoredMachine(name: "a", kind: "auth", state: "loggedOut"), to: store)
      try store.save(StoredMachine(name: "a", kind: "auth", state: "loggedIn"))
    }
    let reopened = try MachineStore(directory: directory, durability: .batched)
    #expect(try reopened.loadAll().map(\.state) == ["loggedOut"])
  }

  @Test("an unusable directory is a clear error")
  func badDirectory() {
    #expect(throws: StoreError.self) {
      _ = try MachineStore(directory: "/nonexistent/millrace", durability: .batched)
    }
  }
}
