// Millrace's own hot paths, measured on the same run as the peers (PeerBenchmarks).
//
// ─────────────────────────────────────────────────────────────────────────────────────────
// INTEGRATOR: FILL IN once the core (`Millrace`) lands. Nothing here runs until then; the
// target exists so that the package layout, `run.sh` and `report.py` are final already.
// ─────────────────────────────────────────────────────────────────────────────────────────
//
// Use `BenchConfig.perInput()` for every per-operation benchmark (1,000 operations per
// iteration, `.kilo` scaling, ns time units, wall clock + throughput + mallocs) and the names
// below: `scripts/report.py` maps each name to its DESIGN.md §6 budget and to its peers by
// these exact strings (see BUDGETS in report.py). A name that is missing shows as "not run".
//
//   per input: post + dispatch + resolve + reply            budget p50 ≤ 15 ns, 0 mallocs
//     "counter:millrace-code"   the counter (BenchSupport/Workloads.swift) as a code machine:
//                               post `.increment`, run the runtime to idle, reply to an
//                               observer that calls `sink.counter(...)`; `sink.verify(1000, ...)`
//     "auth:millrace-code"      the auth machine as a code machine; `login`/`logout` start a
//                               `send(loginOK)` / `send(logoutOK)` effect (the synchronous
//                               stand-in for `after(1s, ...)`), 250 cycles per iteration
//     "auth:millrace-table"     the same machine loaded from a machine file (table machine)
//
//   effects, one operation each                             budget ≤ 200 ns, 0 mallocs
//     "effect:start-after"      start an `after` on the default (merge) queue
//     "effect:replace-latest"   start under `latest(max: 1)` while one is in flight
//     "effect:queue-oldest"     start under `oldest(max: 1, .suspendNew)` while one is in flight
//     "effect:cancel"           `cancel(id)` of one in-flight effect
//     "effect:cycle"            input → effect → timer fires → input (manual driver), no budget
//
//   timers (manual driver, time advanced by hand)           budget ≤ 300 ns, 0 mallocs
//     "timer:arm"               arm one timer
//     "timer:cancel"            cancel one armed timer
//     "timer:fire-1M"           arm 1,000,000 timers, advance past all, per fire ≤ 700 ns
//                               (use `scalingFactor: .mega`, or `.kilo` over 1,000 timers and
//                               say so; `TimerLateness` in BenchSupport records lateness with
//                               HdrHistogram if the libuv driver is used instead)
//
//   memory                                                  budget ≤ 64 bytes per machine
//     "memory:per-machine"      spawn N machines, record the runtime's bytes per machine
//                               beyond queue slots as the custom metric `bytesPerMachine`:
//                               `benchmark.measurement(BenchConfig.bytesPerMachine, bytes)`
//
// Any Millrace hot-path benchmark above whose p50 mallocs are not 0 fails `make bench`
// (report.py exits 3), as issue 5 asks.

import Benchmark
import BenchSupport
import Millrace

let benchmarks: @Sendable () -> Void = {
  // INTEGRATOR: register the Millrace benchmarks here, e.g.
  //
  //   let sink = ReplySink()
  //   let runtime = Runtime(capacities: ...)
  //   let counter = runtime.spawn(CounterMachine.self, ...)
  //   counter.observe { reply in sink.counter(CounterReply(from: reply.from, to: reply.to)) }
  //   Benchmark("counter:millrace-code", configuration: BenchConfig.perInput()) { benchmark in
  //     for _ in benchmark.scaledIterations {
  //       precondition(counter.post(.increment) == .accepted)
  //       runtime.runUntilIdle()
  //     }
  //     sink.verify(BenchConfig.batch, benchmark.name)
  //   }
}
