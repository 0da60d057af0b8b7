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
    }
  }

  @Test func aLargeSnapshotIsCheckpointedPerTwiceItsSize() {
    // A million machines: about 23 MB. The limit stays at three images, one past the due point.
    let pacing = CheckpointPacing(snapshotBytes: 23_000_000)
    #expect(pacing.bytes == 46_000_000)
    #expect(pacing.records == .max)
    #expect(pacing.lendingLength == 23_000_000)
    #expect(pacing.journalLimit == 69_000_000)
    // Between: lending and the limit never fall below the minimums.
    let medium = CheckpointPacing(snapshotBytes: 3 << 19)
    #expect(medium.bytes == 3 << 20)
    #expect(medium.lendingLength == MachineStore.lendingLength)
    #expect(medium.journalLimit == MachineStore.journalLimit)
  }
}
