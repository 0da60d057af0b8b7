// How long and how hard the benchmarks run. One place, so every target measures the same way.

import Benchmark

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

public enum BenchConfig {
  /// `BENCH_QUICK=1`: a short run (the whole of `Bench/run.sh` in under 3 minutes) that still
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

  /// Metrics recorded for every per-input benchmark: wall clock, throughput and mallocs
  /// (the malloc interposer counts every malloc/calloc/realloc/posix_memalign in the measured
  /// region, so "0" really means no allocation at all).
  public static let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

  /// Configuration for a benchmark that processes `batch` inputs per iteration.
  ///
  /// Time units are fixed to nanoseconds so that exported samples (`--format histogramSamples`)
  /// are nanoseconds per iteration; `report.py` divides by `batch` itself and so keeps the
  /// fraction of a nanosecond that the plugin's integer per-input display would round away.
  public static func perInput(
    maxDuration: Duration? = nil, warmup: Int? = nil, tags: [String: String] = [:]
  ) -> Benchmark.Configuration {
    .init(
      metrics: metrics,
      tags: tags,
      timeUnits: .nanoseconds,
      warmupIterations: warmup ?? (quick ? 20 : 200),
      scalingFactor: .kilo,
      maxDuration: maxDuration ?? (quick ? .milliseconds(400) : .milliseconds(1_500)),
      maxIterations: quick ? 20_000 : 200_000)
  }
}

extension BenchConfig {
  /// Custom metric for "memory:per-machine": bytes a machine costs beyond its queue slots
  /// (DESIGN.md §6 budget: ≤ 64). Not scaled: record the per-machine figure itself.
  public static let bytesPerMachine = BenchmarkMetric.custom(
    "bytesPerMachine", polarity: .prefersSmaller, useScalingFactor: false)
}
