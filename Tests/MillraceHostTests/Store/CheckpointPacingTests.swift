import Testing

@testable import MillraceHost

/// Checkpoints of a large snapshot are paced by its size; a small one keeps the minimums.
@Suite struct CheckpointPacingTests {
  @Test func aSmallSnapshotKeepsTheMinimums() {
    for size in [0, 1 << 19, 1 << 20] {
      let pacing = CheckpointPacing(snapshotBytes: size)
      #expect(pacing.records == MachineStore.checkpointRecords)
      #expect(pacing.bytes == MachineStore.checkpointBytes)
      #expect(pacing.lendingLength == MachineStore.lendingLength)
      #expect(pacing.journalLimit == MachineStore.journalLimit)
      #expect(pacing.idleLength == 0)
    }
  }

  @Test func aLargeSnapshotIsCheckpointedPerSeveralTimesItsSize() {
    // A million machines: about 23 MB. Lending starts at one image of backlog; the limit is one
    // image past the due point.
    let times = CheckpointPacing.snapshotsPerCheckpoint
    #expect(times >= 2)
    let pacing = CheckpointPacing(snapshotBytes: 23_000_000)
    #expect(pacing.bytes == times * 23_000_000)
    #expect(pacing.records == .max)
    #expect(pacing.lendingLength == 23_000_000)
    #expect(pacing.journalLimit == (times + 1) * 23_000_000)
    // An idle store checkpoints it from one image of journal.
    #expect(pacing.idleLength == 23_000_000)
    // Between: lending and the limit never fall below the minimums.
    let medium = CheckpointPacing(snapshotBytes: 3 << 19)
    #expect(medium.bytes == times * (3 << 19))
    #expect(medium.lendingLength == MachineStore.lendingLength)
    #expect(medium.journalLimit == MachineStore.journalLimit)
  }
}
