/// How the daemon keeps machines across restarts (DESIGN §4.4).
public enum Durability: String, Sendable, CaseIterable {
  /// Memory only: a restart starts empty.
  case none
  /// Every transition of one loop turn is committed (appended to the store's journal with one
  /// `write`) before its replies are written: a `kill -9` never loses an acknowledged
  /// transition.
  case batched
  /// As `batched`, and each commit is on stable storage (`fdatasync` of the journal; SQLite
  /// with `synchronous=FULL` at checkpoints): commits also survive power loss.
  case strict
}
