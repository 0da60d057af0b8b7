/// How far the journal may grow before a checkpoint is due, from which backlog a commit lends
/// the checkpoint worker the loop's CPU, and at which length it waits for the worker: for a
/// snapshot of a given size.
///
/// A checkpoint writes every page of the snapshot its records change. The changes of a few
/// thousand machines touch a few pages; but a million machines changed at random put nearly
/// every record on a page of its own, and a checkpoint then rewrites about the whole table,
/// however few records it takes. So a large snapshot is checkpointed once per `snapshotShare`
/// of its size in journal, and the lending and the limit grow with it: at a million machines
/// (a 30 MB snapshot), a checkpoint every 5 MB of journal instead of every megabyte, lending
/// from 5 MB and waiting at 30 MB. (`make scale`: SEND to a million random machines went from
/// 0.34 to 0.45 of the throughput at a thousand, 3.3 to 2.6 µs of daemon CPU a SEND; Bench
/// README, "Issue 22".) A small snapshot keeps the minimums.
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

  /// The share of the snapshot's size the journal may reach before a checkpoint is due.
  static let snapshotShare = 6

  /// The pacing for a snapshot of `snapshotBytes` bytes.
  init(snapshotBytes: Int) {
    let share = snapshotBytes / Self.snapshotShare
    guard share > MachineStore.checkpointBytes else {
      records = MachineStore.checkpointRecords
      bytes = MachineStore.checkpointBytes
      lendingLength = MachineStore.lendingLength
      journalLimit = MachineStore.journalLimit
      return
    }
    // Only the journal's bytes decide: a record count would be reached by small records first.
    records = .max
    bytes = share
    lendingLength = max(MachineStore.lendingLength, share)
    journalLimit = max(MachineStore.journalLimit, 6 * share)
  }
}
