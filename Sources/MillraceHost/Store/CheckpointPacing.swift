/// How far the journal may grow before a checkpoint is due, from which backlog a commit lends
/// the checkpoint worker the loop's CPU, and at which length it waits for the worker: for a
/// snapshot of a given size.
///
/// A checkpoint rewrites each row of the snapshot's image its records fall in
/// (`SQLiteSnapshot`). The changes of a few thousand machines fall in a few rows; but a million
/// machines changed at random touch every row, and a checkpoint then rewrites the whole image,
/// however few records it takes. So a large snapshot is checkpointed once per
/// `snapshotsPerCheckpoint` times its size in journal, and the lending and the limit grow with
/// it: at a million machines (a 23 MB image), a checkpoint every 46 MB of journal instead of
/// every megabyte, lending once the journal that grows meanwhile reaches one image (23 MB), and
/// waiting at 69 MB (three images: what a replay after a crash may have to read). A store gone
/// idle checkpoints a large snapshot's journal only once it holds one image (`idleLength`), so
/// that a burst's last few records do not cost a rewrite of the whole image each. A small
/// snapshot keeps the minimums. The journal keeps only its latest records in memory
/// (`TurnJournal.residentWindow`); a checkpoint's memory grows with the rows its records fall
/// in, not with their number (8 bytes a slot of them, `RowChanges`). (Figures: Bench README,
/// "Issue 22".)
struct CheckpointPacing: Hashable, Sendable {
  /// Records committed since the last checkpoint started that make the next one due.
  var records: Int
  /// Journal bytes that make the next checkpoint due.
  var bytes: Int
  /// The journal's length from which a commit, while a checkpoint is in flight, lends the
  /// worker the loop's CPU (`MachineStore.lendToCheckpoint()`).
  var lendingLength: Int
  /// The journal's length at which a commit waits for the checkpoint in flight.
  var journalLimit: Int
  /// The journal's length from which a store gone idle checkpoints it
  /// (`MachineStore.checkpointWhenIdle()`): any record for a small snapshot; one image for a
  /// large one, so that an idle checkpoint costs at most twice a due one per record. Below it
  /// the journal waits for the next due checkpoint, or for `close()`.
  var idleLength: Int

  /// How many times the snapshot's size the journal reaches before a checkpoint is due.
  static let snapshotsPerCheckpoint = 2

  /// The pacing for a snapshot of `snapshotBytes` bytes.
  init(snapshotBytes: Int) {
    guard snapshotBytes > MachineStore.checkpointBytes else {
      records = MachineStore.checkpointRecords
      bytes = MachineStore.checkpointBytes
      lendingLength = MachineStore.lendingLength
      journalLimit = MachineStore.journalLimit
      idleLength = 0
      return
    }
    // Only the journal's bytes decide: a record count would be reached by small records first.
    let share = Self.snapshotsPerCheckpoint * snapshotBytes
    records = .max
    bytes = share
    // Lending starts half-way to the next checkpoint: the worker, niced, gets little of a CPU
    // it shares with the loop, and a checkpoint still in flight at the limit stops the loop.
    lendingLength = max(MachineStore.lendingLength, snapshotBytes)
    journalLimit = max(MachineStore.journalLimit, share + snapshotBytes)
    // Such a checkpoint rewrites every row the journal's records fall in: all of them, for
    // changes at random, however few.
    idleLength = snapshotBytes
  }
}
