// Hot paths (BenchWorkloads' `HotPath`) as benchmarks: alone, or two timed in pairs. Used by
// both benchmark targets, so that Millrace's paths and the peers' are timed the same way.

import Benchmark

/// Registers `path` as a benchmark: each iteration prepares outside the measurement, measures
/// `measured()` and checks outside it. An iteration is `path.operations` operations:
/// `configuration`'s scaling factor, or report.py's SCALING where no factor fits (8 cancels).
public func registerHotPath(_ path: some HotPath, _ configuration: Benchmark.Configuration) {
  Benchmark(path.name, configuration: configuration) { benchmark in
    path.prepare()
    benchmark.startMeasurement()
    path.measured()
    benchmark.stopMeasurement()
    path.finish()
  }
}

/// Registers `subject` timed against `peer` in the same iterations: each iteration measures a
/// run of both, back to back (in turn which goes first), and records the subject's time over
/// the peer's, in thousandths (`BenchConfig.pairedRatio`), so that a ratio budget is judged on
/// two runs made at the same speed of the machine. Its name is the subject's with `/paired`.
public func registerPaired(
  _ subject: some HotPath, against peer: some HotPath, _ configuration: Benchmark.Configuration
) {
  var paired = configuration
  paired.metrics = [BenchConfig.pairedRatio]
  paired.scalingFactor = .one
  let clock = ContinuousClock()
  func timed(_ path: some HotPath) -> Duration {
    path.prepare()
    let start = clock.now
    path.measured()
    let elapsed = clock.now - start
    path.finish()
    return elapsed
  }
  var subjectFirst = false
  Benchmark(subject.name + "/paired", configuration: paired) { benchmark in
    subjectFirst.toggle()
    let subjectTime: Duration
    let peerTime: Duration
    if subjectFirst {
      subjectTime = timed(subject)
      peerTime = timed(peer)
    } else {
      peerTime = timed(peer)
      subjectTime = timed(subject)
    }
    let ratio = subjectTime / max(peerTime, .nanoseconds(1))
    benchmark.measurement(BenchConfig.pairedRatio, Int((ratio * 1_000).rounded()))
  }
}
