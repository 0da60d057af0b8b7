// The batch size and the BENCH_QUICK switch, in the dependency-free target so that the
// instruction counter (Sources/instructions) runs the same batches as the benchmarks without
// linking ordo-one/benchmark (whose malloc interposer would sit in front of every malloc).
// The benchmark configuration itself is in BenchSupport (Config.swift), as an extension.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How long and how hard the benchmarks run. One place, so every target measures the same way.
public enum BenchConfig {
  /// `BENCH_QUICK=1`: a short run (the whole of `Bench/run.sh` in about 4 minutes) that still
  /// gives stable medians for the per-input paths; the tails are noisier.
  public static let quick: Bool = {
    guard let value = getenv("BENCH_QUICK") else { return false }
    let text = String(cString: value)
    return text != "" && text != "0"
  }()

  /// Inputs processed by one benchmark iteration. Every per-input benchmark runs this many
  /// inputs per iteration and declares `scalingFactor: .kilo`, so the per-input cost is the
  /// iteration's time divided by 1,000 (what `--scale` prints and what `report.py` computes).
  public static let batch = 1_000
}
