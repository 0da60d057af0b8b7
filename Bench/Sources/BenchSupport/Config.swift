// How the benchmarks measure: BenchConfig's metrics and configuration (its batch size and the
// BENCH_QUICK switch are in BenchWorkloads, which every benchmark target sees through this
// module).

@_exported import BenchWorkloads
import Benchmark

extension BenchConfig {
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

  /// Custom metric of a paired benchmark (`…/paired`): a run of the subject's time over a run of
  /// its peer's, made back to back in one iteration, in thousandths. Not scaled.
  public static let pairedRatio = BenchmarkMetric.custom(
    "pairedRatio", polarity: .prefersSmaller, useScalingFactor: false)
}
