// What a measured path is, for every measurer: the timed benchmarks (BenchSupport's
// `registerHotPath` and `registerPaired`, in Benchmarks/MillraceBenchmarks and
// Benchmarks/PeerBenchmarks) and the instruction counter (Sources/instructions). In this
// dependency-free target, so that Millrace's paths (MillraceWorkloads) and the peers' can be
// timed side by side.

/// One measured path: what it needs, set up once, and the operations measured on it.
public protocol HotPath: AnyObject {
  /// The benchmark's name, as `scripts/report.py`'s BUDGETS and `budgets.json` know it.
  var name: String { get }
  /// Operations one `measured()` performs: every per-operation figure divides by this.
  var operations: Int { get }
  /// Work an iteration needs before its measurement (arming the effects a cancel cancels).
  func prepare()
  /// The measured operations.
  func measured()
  /// Checks and clean-up after the measurement (did the work happen; cancel what was armed).
  func finish()
}

extension HotPath {
  /// Nothing to prepare.
  public func prepare() {}
  /// Nothing to check.
  public func finish() {}
}
