/// Why `Runtime.spawn` made no machine. When it throws one, no machine slot is taken (a variant,
/// a block or effect room it reserved on the way is kept for the next spawn), and the refusal
/// is counted in `RuntimeStatistics.spawnsRefused`.
public enum SpawnError: Error, Hashable, Sendable {
  /// Every machine slot is in use (`RuntimeCapacity.machines`).
  case machineSlotsFull
  /// The bytes reserved for machine blocks (`RuntimeCapacity.blockBytes`) are used up.
  case blockBytesUsedUp
  /// The runtime already has `RuntimeCapacity.maxVariants` variants (machine type and queue layout
  /// combinations), and this machine would need a new one.
  case variantsFull
  /// The memory for a new variant, its pools, a chunk of blocks or the effect scratch could not
  /// be allocated (Embedded Swift, where an allocation can fail without a stop).
  case outOfMemory
}
