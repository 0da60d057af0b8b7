// Timer lateness (fire time − deadline) as an HDR histogram, for the timer benchmarks that
// run on a real clock (the libuv driver). The per-fire *cost* comes from the iteration time;
// this records how late the fires were, which a batch mean cannot show.

import Benchmark
import Histogram

public struct TimerLateness {
  /// Lateness in nanoseconds, 1 ns to 60 s, 3 significant digits; allocated once, up front.
  @usableFromInline var _histogram = Histogram<UInt64>(
    lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)

  public init() {}

  /// Records one fire. A fire before its deadline (which would be a bug) is recorded as 0.
  @inlinable public mutating func record(deadlineNanos: UInt64, firedNanos: UInt64) {
    _ = _histogram.record(firedNanos > deadlineNanos ? firedNanos - deadlineNanos : 0)
  }

  public var histogram: Histogram<UInt64> { _histogram }

  public mutating func reset() { _histogram.reset() }

  /// Custom metrics: p50, p99 and max lateness in ns (not scaled).
  public static let p50 = BenchmarkMetric.custom("latenessP50ns", useScalingFactor: false)
  public static let p99 = BenchmarkMetric.custom("latenessP99ns", useScalingFactor: false)
  public static let max = BenchmarkMetric.custom("latenessMaxns", useScalingFactor: false)

  /// Reports the recorded lateness to `benchmark` as the three custom metrics above.
  public func report(to benchmark: Benchmark) {
    benchmark.measurement(Self.p50, Int(histogram.valueAtPercentile(50)))
    benchmark.measurement(Self.p99, Int(histogram.valueAtPercentile(99)))
    benchmark.measurement(Self.max, Int(histogram.max))
  }
}
