/// How the daemon keeps machines across restarts (DESIGN §4.4).
public enum Durability: String, Sendable, CaseIterable {
  /// Memory only: a restart starts empty.
  case none
  /// Every transition of one loop turn is committed in one transaction before its replies are
  /// written (SQLite WAL, `synchronous=NORMAL`): a `kill -9` never loses an acknowledged
  /// transition.
  case batched
  /// As `batched`, with `synchronous=FULL`: commits also survive power loss.
  case strict
}
