/// Identifies a spawned machine within its runtime; never reused for another machine while
/// the runtime lives (the generation changes when a slot is reused).
public struct MachineID: Hashable, Sendable {
  /// The machine's slot in the runtime.
  public var index: UInt32
  /// Distinguishes machines that used the same slot at different times.
  public var generation: UInt32

  /// Creates an id from its parts.
  @inlinable
  public init(index: UInt32, generation: UInt32) {
    self.index = index
    self.generation = generation
  }
}
