import Millrace

extension KindDefinition {
  /// A queue's policy: the core's own (DESIGN §2.3), so a machine file's queues reach the
  /// runtime unchanged.
  public typealias QueuePolicy = Millrace.QueuePolicy
  /// What an `oldest` queue does with an effect that finds it full (`"overflow"` in a file).
  public typealias Overflow = Millrace.OldestOverflow
}
