import Foundation
import Synchronization
import Testing

@testable import MillraceHost

/// Checkpoints on the store's worker thread, with two journal files: commits never wait for
/// one, and neither a crash meanwhile nor a failed one loses a committed change. The time limit
/// turns a deadlock into a failure; it is long because, in a parallel run, it also counts the
/// time the suite waits for a thread (see `hangGuard` in the integration tests).
@Suite("Store checkpoints", .timeLimit(.minutes(10)))
struct StoreCheckpointTests {
  let directory = StoreFixtures.directory("millrace-checkpoint")

  /// Holds checkpoint jobs on the worker until opened.
  final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// Checkpoint jobs that reached the gate.
    let arrivals = Atomic<Int>(0)

    func pass() -> StoreError? {
      arrivals.add(1, ordering: .relaxed)
      semaphore.wait()
      semaphore.signal()
      return nil
    }

    func open() { semaphore.signal() }

    /// Whether `count` jobs reached the gate within 10 s: the worker thread may not have run
    /// yet when the commits that queued the job return (a busy machine).
    func reached(_ count: Int) -> Bool {
      for _ in 0..<1_000 {
        if arrivals.load(ordering: .relaxed) >= count { return true }
        usleep(10_000)
      }
      return false
    }
  }

  /// Commits `names` in turns of one each, in `state`.
  func commit(_ names: [String], state: String = "on", to store: MachineStore) throws {
    for name in names {
      try store.save(StoredMachine(name: name, kind: "toggle", state: state))
      try store.commit()
    }
  }

  /// Names `prefix0`… enough for one checkpoint.
  func batch(_ prefix: String, _ count: Int = MachineStore.checkpointRecords) -> [String] {
    (0..<count).map { "\(prefix)\($0)" }
  }

  @Test("a checkpoint's statement journals stay in memory, not in a temporary file")
  func statementJournalsInMemory() throws {
    let snapshot = try SQLiteSnapshot(directory: directory, durability: .batched)
    #expect(try snapshot.tempStore() == 2)
  }

  @Test("a checkpoint held on the worker: commits go on into the other journal, none waits")
  func commitsDoNotWait() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let gate = Gate()
    store.checkpointHook = { gate.pass() }
    try commit(batch("m"), to: store)
    // The job started; the commits that follow return while it is held.
    try commit(batch("n", 3 * MachineStore.checkpointRecords), to: store)
    #expect(store.checkpoints == 0)
    #expect(gate.reached(1))
    #expect(gate.arrivals.load(ordering: .relaxed) == 1)
    gate.open()
    store.settle()
    #expect(store.checkpoints == 1)
    // The next commit starts the next checkpoint, which takes all the rest at once.
    try commit(["last"], to: store)
    store.settle()
    #expect(store.checkpoints == 2)
    #expect(gate.arrivals.load(ordering: .relaxed) == 2)
    #expect(try store.loadAll().count == 4 * MachineStore.checkpointRecords + 1)
  }

  /// A store whose first checkpoint (`x` on, `m0`…) is held at the gate as it starts (and
  /// then fails with `failure`, when given), or `inMerge`, once its merge has begun; with `x`
  /// off and `y` committed since into the other journal.
  func storeWithCheckpointHeld(failing failure: StoreError? = nil, inMerge: Bool = false) throws
    -> (MachineStore, Gate)
  {
    let store = try MachineStore(directory: directory, durability: .batched)
    let gate = Gate()
    if inMerge {
      store.mergeHook = { _ = gate.pass() }
    } else {
      store.checkpointHook = { gate.pass() ?? failure }
    }
    try commit(["x"] + batch("m", MachineStore.checkpointRecords - 1), to: store)
    try commit(["x"], state: "off", to: store)
    try commit(["y"], to: store)
    return (store, gate)
  }

  /// Closes `store` once its checkpoint reached `gate`, opening the gate 0.2 s after: while
  /// `close()` stops the checkpoint or waits for it.
  func closeWhileHeld(_ store: MachineStore, at gate: Gate) throws {
    #expect(gate.reached(1))
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { gate.open() }
    try store.close()
  }

  /// Reopens the store closed by `closeWhileHeld`: nothing is left to replay, and it has the
  /// rows of both journals.
  func expectClosedWithBothJournals() throws {
    let reopened = try MachineStore(directory: directory, durability: .batched)
    #expect(reopened.checkpoints == 0)
    try expectBothJournals(in: reopened)
  }

  /// Expects the rows of both journals of `storeWithCheckpointHeld()`, the newer `x` winning.
  func expectBothJournals(in store: MachineStore) throws {
    let rows = try store.loadAll()
    #expect(rows.count == MachineStore.checkpointRecords + 1)
    #expect(rows.first { $0.name == "x" }?.state == "off")
    #expect(rows.contains { $0.name == "y" })
  }

  @Test("a clean stop abandons the checkpoint in flight and rewrites the image once")
  func closeAbandonsCheckpointInFlight() throws {
    do {
      let (store, gate) = try storeWithCheckpointHeld()
      // Opened once `close()` asked the job to stop: it stops before its merge begins.
      try closeWhileHeld(store, at: gate)
      // The abandoned checkpoint is not counted (nor reported): the close's own took both
      // journals.
      #expect(store.checkpoints == 1)
      #expect(store.checkpointFailure == nil)
    }
    try expectClosedWithBothJournals()
  }

  @Test("a clean stop waits for a checkpoint whose merge has begun, then takes the newer journal")
  func closeWaitsForMergeInProgress() throws {
    do {
      // Held once its first record went to the image (the close's own passes once opened).
      let (store, gate) = try storeWithCheckpointHeld(inMerge: true)
      try closeWhileHeld(store, at: gate)
      // Not abandoned: the checkpoint in flight is counted, and the close's own took only the
      // active journal.
      #expect(store.checkpoints == 2)
      #expect(gate.arrivals.load(ordering: .relaxed) == 2)
      #expect(store.checkpointFailure == nil)
    }
    try expectClosedWithBothJournals()
  }

  @Test("a checkpoint in flight that fails at a clean stop is reported, and the close keeps all")
  func closeReportsFailedCheckpointInFlight() throws {
    let failures = Atomic<Int>(0)
    do {
      let (store, gate) = try storeWithCheckpointHeld(
        failing: StoreError(operation: "checkpoint", code: EIO, message: "injected"))
      store.onCheckpointFailure = { _ in failures.add(1, ordering: .relaxed) }
      try closeWhileHeld(store, at: gate)
      #expect(store.checkpoints == 1)
    }
    #expect(failures.load(ordering: .relaxed) == 1)
    try expectClosedWithBothJournals()
  }

  @Test("a crash while a checkpoint is in flight loses nothing: both journals are replayed")
  func crashDuringCheckpoint() throws {
    let (store, gate) = try storeWithCheckpointHeld()
    // Alive, its checkpoint held, until the copy was reopened (its release waits for the job).
    defer { withExtendedLifetime(store) {} }
    // What a kill -9 now leaves: the snapshot without the held checkpoint, both journals.
    let copy = directory + "-crash"
    try FileManager.default.copyItem(atPath: directory, toPath: copy)
    defer { try? FileManager.default.removeItem(atPath: copy) }
    gate.open()
    let reopened = try MachineStore(directory: copy, durability: .batched)
    // Both in one checkpoint (the image rewritten once), the newer journal's "x" winning.
    #expect(reopened.checkpoints == 1)
    try expectBothJournals(in: reopened)
  }

  @Test("a journal already in the snapshot is not replayed, though older and whole")
  func appliedJournalIsNotReplayed() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      // The first journal's checkpoint ends; its records stay whole in its file.
      try commit(["x"] + batch("m", MachineStore.checkpointRecords - 1), to: store)
      store.settle()
      #expect(store.checkpoints == 1)
      // Later changes go in from the other journal, which then starts a new epoch.
      try commit(["x"], state: "off", to: store)
      try store.checkpoint()
    }
    let rows = try MachineStore(directory: directory, durability: .batched).loadAll()
    #expect(rows.first { $0.name == "x" }?.state == "off")
  }

  @Test("a checkpoint of many saves and deletes leaves the rows a dictionary of them says")
  func manyChanges() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let timer = StoredTimer(
      input: "t", repeats: true, spanNanoseconds: 7, deadlineWallNanoseconds: 9,
      remainingNanoseconds: 3, queue: 1, effectID: 2)
    var expected: [String: StoredMachine] = [:]
    var generator = SystemRandomNumberGenerator()
    // Several checkpoints' worth: new machines, machines saved again (with and without
    // timers), deleted, and deleted then saved again, in turns of various sizes.
    for turn in 0..<300 {
      for _ in 0..<Int.random(in: 1...20, using: &generator) {
        try StoreFixtures.change(
          "m\(Int.random(in: 0..<500, using: &generator))",
          delete: Int.random(in: 0..<5, using: &generator) == 0, kind: "k", state: "s\(turn)",
          timers: turn.isMultiple(of: 3) ? [timer] : [], in: store, expected: &expected)
      }
      try store.commit()
    }
    let rows = expected.values.sorted { $0.name < $1.name }
    #expect(try store.loadAll() == rows)
    // And as a restart reads it, from the files alone.
    let copy = directory + "-copy"
    try FileManager.default.copyItem(atPath: directory, toPath: copy)
    defer { try? FileManager.default.removeItem(atPath: copy) }
    #expect(try MachineStore(directory: copy, durability: .batched).loadAll() == rows)
  }

  @Test("a journal at its limit makes a commit wait for the checkpoint in flight")
  func journalLimit() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let gate = Gate()
    store.checkpointHook = { gate.pass() }
    try commit(batch("m"), to: store)
    // Held: the commits that follow fill the other journal, up to its limit, and the one
    // that reaches it waits until the gate opens (a quarter of a second from now).
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.25) { gate.open() }
    let start = Date()
    let big = String(repeating: "s", count: 64 * 1024)
    for index in 0..<(MachineStore.journalLimit / big.utf8.count + 1) {
      try store.save(StoredMachine(name: "big\(index)", kind: "toggle", state: big))
      try store.commit()
    }
    #expect(Date().timeIntervalSince(start) >= 0.2)
    #expect(store.checkpoints >= 1)
  }

  @Test("a backlog lends the worker the loop's CPU in bounded waits, long before the limit")
  func backlogLendsToTheWorker() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let gate = Gate()
    store.checkpointHook = { gate.pass() }
    defer {
      gate.open()
      store.settle()
    }
    try commit(batch("m"), to: store)
    // Held: the other journal grows to twice `lendingLength` (4 × `lendingStep` lent then).
    let big = String(repeating: "s", count: 64 * 1024)
    for index in 0..<(2 * MachineStore.lendingLength / big.utf8.count + 1) {
      try store.save(StoredMachine(name: "big\(index)", kind: "toggle", state: big))
      try store.commit()
    }
    // Past the period since the last lending: the next commit lends again, waits for the held
    // worker up to its bound, and returns with the checkpoint still in flight.
    usleep(UInt32(MachineStore.lendingPeriod / 1000))
    let start = DispatchTime.now().uptimeNanoseconds
    try store.save(StoredMachine(name: "one more", kind: "toggle", state: "on"))
    try store.commit()
    let took = Int(DispatchTime.now().uptimeNanoseconds - start)
    #expect(took >= 4 * MachineStore.lendingStep)
    #expect(took < 1_000_000_000)
    #expect(store.checkpoints == 0)
  }

  @Test("the worker waits up to a time for the job in flight, and says whether it finished")
  func workerWaitsUpTo() {
    let worker = CheckpointWorker()
    defer { worker.stop() }
    let gate = Gate()
    #expect(worker.submit { gate.pass() })
    let start = DispatchTime.now().uptimeNanoseconds
    #expect(!worker.wait(upTo: 2_000_000))
    #expect(DispatchTime.now().uptimeNanoseconds - start >= 2_000_000)
    gate.open()
    #expect(worker.wait(upTo: 10_000_000_000))
    _ = worker.takeOutcome()
  }

  @Test("the worker runs nicer than the thread that started it")
  func workerIsNicer() throws {
    let worker = CheckpointWorker()
    defer { worker.stop() }
    let niceSeen = Atomic<Int>(-100)
    #expect(
      worker.submit {
        niceSeen.store(
          Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)), ordering: .relaxed)
        return nil
      })
    worker.wait()
    let here = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
    #expect(
      niceSeen.load(ordering: .relaxed) == min(here + Int(CheckpointWorker.niceIncrement), 19))
  }

  /// Grows the active journal of a fresh store past `4 * TurnJournal.growth` while its
  /// checkpoint is held back, then lets the checkpoint take it: the grown file is the spare
  /// afterwards, its records in the snapshot. Commits 101 machines besides `batch("m")`.
  private func growAJournal(of store: MachineStore) throws {
    let gate = Gate()
    store.checkpointHook = { gate.pass() }
    try commit(batch("m"), to: store)
    let big = String(repeating: "s", count: 64 * 1024)
    for index in 0..<100 {
      try store.save(StoredMachine(name: "big\(index)", kind: "toggle", state: big))
      try store.commit()
    }
    gate.open()
    // The next checkpoint takes the 6 MiB journal, which is swapped out with its room.
    store.settle()
    try commit(["next"], to: store)
    store.settle()
  }

  /// The sizes of the two journal files.
  private func journalSizes() throws -> [Int] {
    try MachineStore.journalNames.map { name in
      try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as! Int
    }
  }

  @Test("close gives back the room a backlog of checkpoints grew the journals to")
  func closeShrinksJournals() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    try growAJournal(of: store)
    #expect(try journalSizes().max()! > 4 * TurnJournal.growth)
    try store.close()
    #expect(try journalSizes() == [TurnJournal.growth, TurnJournal.growth])
    #expect(try store.loadAll().count == MachineStore.checkpointRecords + 101)
  }

  @Test("close gives back the room of a grown journal that takes the commits but holds none")
  func closeShrinksAnEmptyGrownJournal() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    try growAJournal(of: store)
    // A checkpoint's worth of commits: the next checkpoint takes the small journal, and the
    // grown one, emptied, takes the commits from then on.
    try commit(batch("n"), to: store)
    store.settle()
    #expect(try journalSizes().max()! > 4 * TurnJournal.growth)
    try store.close()
    #expect(try journalSizes() == [TurnJournal.growth, TurnJournal.growth])
    #expect(try store.loadAll().count == 2 * MachineStore.checkpointRecords + 101)
  }

  @Test("checkpoints are paced by the image's size, also while SQLite's log still holds it")
  func pacedByTheImageInTheLog() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    // About 2 MiB of image, written by checkpoints into SQLite's log (it is merged into
    // `machines.sqlite3` only at 1,000 pages, 64 MB).
    let names = batch("a-somewhat-longer-name-", 60_000)
    for start in stride(from: 0, to: names.count, by: 1_000) {
      for name in names[start..<start + 1_000] {
        try store.save(StoredMachine(name: name, kind: "toggle", state: "on"))
      }
      try store.commit()
    }
    try store.checkpoint()
    let file =
      try FileManager.default.attributesOfItem(
        atPath: "\(directory)/machines.sqlite3")[.size] as! Int
    let image = store.snapshotSize
    #expect(image > 2 * MachineStore.checkpointBytes)
    #expect(file < image / 4, "the image is in the log: \(file) of \(image) bytes in the file")
    #expect(store.pacing == CheckpointPacing(snapshotBytes: image))
    #expect(store.pacing.bytes == CheckpointPacing.snapshotsPerCheckpoint * image)
  }

  @Test("a checkpoint that succeeded takes its journal's records out of the process's memory")
  func checkpointReleasesJournalPages() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    // `checkpointRecords` records of about 32 bytes: the last seals the first journal (within
    // its first MiB) for a checkpoint, whose outcome the loop takes at `settle`.
    try commit(batch("m"), to: store)
    let first = "\(directory)/\(MachineStore.journalNames[0])"
    #expect(try TurnJournalTests.residentKilobytes(of: first) >= 400)
    store.settle()
    #expect(store.checkpoints == 1)
    #expect(try TurnJournalTests.residentKilobytes(of: first) <= 8)
    #expect(try store.loadAll().count == MachineStore.checkpointRecords)
  }

  /// The names of the machines `makeLargeSnapshot()` stores: about 100 bytes each.
  private static let largeNames = (0..<40_000).map { "\(String(repeating: "p", count: 96))\($0)" }
  private var largeNames: [String] { Self.largeNames }

  /// A store reopened on about 5 MB of image (`largeNames`, each `off`), which paces its
  /// checkpoints as a large snapshot (`CheckpointPacing`).
  private func makeLargeSnapshot() throws -> MachineStore {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      for name in largeNames {
        try store.save(StoredMachine(name: name, kind: "toggle", state: "off"))
      }
      try store.commit()
      try store.close()
    }
    let store = try MachineStore(directory: directory, durability: .batched)
    #expect(store.pacing.records == .max)
    return store
  }

  @Test(
    "a large snapshot is checkpointed per several times its size in journal, not per record count")
  func largeSnapshotPacing() throws {
    let store = try makeLargeSnapshot()
    let pacing = CheckpointPacing(snapshotBytes: 5 << 20)
    #expect(pacing.bytes > MachineStore.checkpointBytes)
    // Twice the records that make a small snapshot's checkpoint due, a sixth of the bytes.
    try commit(batch("q", 2 * MachineStore.checkpointRecords), state: "on", to: store)
    store.settle()
    #expect(store.checkpoints == 0)
    // Past the image's size in journal (about 6 MB), not yet `snapshotsPerCheckpoint` times it:
    // not due.
    let state = String(repeating: "s", count: 2_000)
    let names = largeNames
    try commit(names.prefix(3_000).map { $0 }, state: state, to: store)
    store.settle()
    #expect(store.checkpoints == 0)
    // Past `CheckpointPacing.snapshotsPerCheckpoint` times the image's size: due.
    let more = CheckpointPacing.snapshotsPerCheckpoint * 3_000
    try commit(names.suffix(more).map { $0 }, state: state, to: store)
    store.settle()
    #expect(store.checkpoints >= 1)
  }

  /// Two ticks of the store monitor after a commit (`checkpointWhenIdle()`, the first finding
  /// the store busy), each waited for: the checkpoints completed after each.
  private func twoIdleTicks(_ store: MachineStore) -> [Int] {
    (0..<2).map { _ in
      store.checkpointWhenIdle()
      store.settle()
      return store.checkpoints
    }
  }

  @Test("an idle store checkpoints its journal and gives its pages back; a busy one does not")
  func idleCheckpoint() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    // Fewer records than make a checkpoint due: only the idle checkpoint takes them.
    try commit(batch("m", 100), state: String(repeating: "z", count: 700), to: store)
    let first = "\(directory)/\(MachineStore.journalNames[0])"
    #expect(try TurnJournalTests.residentKilobytes(of: first) >= 64)
    // Committed since the first tick: busy, nothing starts. Nothing committed since the
    // second: the journal goes into the snapshot, and out of memory.
    #expect(twoIdleTicks(store) == [0, 1])
    #expect(try TurnJournalTests.residentKilobytes(of: first) <= 8)
    // An empty journal is not checkpointed again.
    store.checkpointWhenIdle()
    store.settle()
    #expect(store.checkpoints == 1)
    // What it wrote is what a restart reads, from the snapshot alone.
    let copy = directory + "-copy"
    try FileManager.default.copyItem(atPath: directory, toPath: copy)
    defer { try? FileManager.default.removeItem(atPath: copy) }
    try FileManager.default.removeItem(atPath: "\(copy)/\(MachineStore.journalNames[0])")
    #expect(try MachineStore(directory: copy, durability: .batched).loadAll().count == 100)
  }

  @Test("an idle store checkpoints a large snapshot's journal once it holds an image, not before")
  func idleCheckpointOfALargeSnapshot() throws {
    let state = String(repeating: "s", count: 2_000)
    do {
      let store = try makeLargeSnapshot()
      let idleLength = store.pacing.idleLength
      #expect(idleLength == store.snapshotSize)
      // A few changes (the last of a burst): idle, but far under an image of journal.
      try commit(Array(largeNames.prefix(1_000)), state: "on", to: store)
      #expect(twoIdleTicks(store) == [0, 0])
      // An image of journal (3,000 records of 2 KB), not yet due: the idle checkpoint takes it.
      try commit(Array(largeNames.prefix(3_000)), state: state, to: store)
      #expect(store.pacing.bytes > idleLength)
      #expect(twoIdleTicks(store) == [0, 1])
      try store.close()
    }
    // What the journal held, the short one's changes included, is in the snapshot.
    let stored = try MachineStore(directory: directory, durability: .batched).loadAll()
    let states = Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0.state) })
    #expect(states.count == largeNames.count)
    #expect(states[largeNames[0]] == state)
    #expect(states[largeNames[2_999]] == state)
    #expect(states[largeNames[3_000]] == "off")
  }

  @Test("a failed checkpoint fails no commit, keeps its journal, and is retried a journal later")
  func failedCheckpointIsRetried() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    final class Counter: Sendable { let value = Atomic<Int>(0) }
    let failures = Counter()
    store.checkpointHook = {
      guard failures.value.add(1, ordering: .relaxed).newValue == 1 else { return nil }
      return StoreError(operation: "checkpoint", code: 28, message: "No space left on device")
    }
    try commit(batch("m"), to: store)
    store.settle()
    #expect(store.checkpointFailure?.code == 28)
    #expect(store.checkpoints == 0)
    // Not retried at the next `checkpointRecords` records (about 500 KiB), but once another
    // 1 MiB of journal is written.
    try commit(batch("n"), to: store)
    store.settle()
    #expect(failures.value.load(ordering: .relaxed) == 1)
    let big = String(repeating: "s", count: 64 * 1024)
    var turns = 0
    while failures.value.load(ordering: .relaxed) == 1 {
      try store.save(StoredMachine(name: "big\(turns)", kind: "toggle", state: big))
      try store.commit()
      turns += 1
      store.settle()
    }
    #expect(turns > 1 && turns <= MachineStore.checkpointBytes / big.utf8.count)
    #expect(store.checkpointFailure == nil)
    #expect(store.checkpoints >= 1)
    #expect(try store.loadAll().count == 2 * MachineStore.checkpointRecords + turns)
  }
}
