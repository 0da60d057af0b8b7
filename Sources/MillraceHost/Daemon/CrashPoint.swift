#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Places where the daemon kills itself (`SIGKILL`, as `kill -9` would) when the environment
/// variable `MILLRACED_CRASH_AT` names one: how the tests of crash recovery stop a node at the
/// exact moment they study (in the middle of a machine's move, docs/cluster.md). Unset, every
/// point is one comparison.
enum CrashPoint: String, Sendable {
  /// A `MIGRATE`'s source, after the target acknowledged every machine and before the source
  /// deleted them.
  case migrateBeforeDelete = "migrate-before-delete"
  /// A `RESTORE`'s node, after the turn that placed the machine committed and before its reply
  /// went out.
  case restoreAfterCommit = "restore-after-commit"

  /// The point `MILLRACED_CRASH_AT` names, read once.
  static let armed: CrashPoint? = getenv("MILLRACED_CRASH_AT").flatMap {
    CrashPoint(rawValue: String(cString: $0))
  }

  /// Kills the process if this point is armed.
  func reach() {
    guard Self.armed == self else { return }
    kill(getpid(), SIGKILL)
  }
}
