// The peers of DESIGN.md §6, on the same run as Millrace, doing the same work (see
// BenchSupport/Workloads.swift): per iteration 1,000 inputs are resolved and 1,000 replies
// delivered to an observer; `scalingFactor: .kilo` makes every figure per input.
//
// Names are `<workload>:<peer>`; `report.py` matches them with the Millrace benchmarks of
// the same workload (`counter:millrace-code`, `auth:millrace-table`, ...).

import BenchSupport
import Benchmark
import MillraceWorkloads

let benchmarks: @Sendable () -> Void = {
  let config = BenchConfig.perInput()
  let batch = BenchConfig.batch
  let cycles = Auth.cyclesPerBatch

  // MARK: ring buffer + switch (the practical limit)

  registerHotPath(RingPath<RingCounter>(), config)
  registerHotPath(RingPath<RingAuth>(), config)

  // Millrace's dispatch rows timed in pairs with the ring (`…/paired`): DESIGN §6's "p50 ≤ 4×
  // the ring + switch loop" is judged on these, two runs made at the same speed of the machine.
  registerPaired(CounterPath(), against: RingPath<RingCounter>(), config)
  registerPaired(AuthCodePath(), against: RingPath<RingAuth>(), config)
  registerPaired(AuthTablePath(), against: RingPath<RingAuth>(), config)

  // MARK: Harvest-style pipeline on OpenCombine

  do {
    let sink = ReplySink()
    let machine = CombineCounter(reply: sink.counter)
    Benchmark("counter:combine", configuration: config) { benchmark in
      for _ in benchmark.scaledIterations { machine.post(.increment) }
      sink.verify(batch, benchmark.name)
    }
  }
  do {
    let sink = ReplySink()
    let machine = CombineAuth(reply: sink.auth)
    Benchmark("auth:combine", configuration: config) { benchmark in
      for _ in 0..<cycles {
        machine.post(.login)
        machine.post(.logout)
      }
      sink.verify(batch, benchmark.name)
      precondition(machine.dropped == 0)
    }
  }

  // MARK: actor

  do {
    let sink = ReplySink()
    let machine = ActorCounter(reply: sink.counter)
    Benchmark("counter:actor", configuration: config) { benchmark async in
      for _ in benchmark.scaledIterations { await machine.post(.increment) }
      sink.verify(batch, benchmark.name)
    }
  }
  do {
    let sink = ReplySink()
    let machine = ActorAuth(reply: sink.auth)
    Benchmark("auth:actor", configuration: config) { benchmark async in
      for _ in 0..<cycles {
        await machine.post(.login)
        await machine.post(.logout)
      }
      sink.verify(batch, benchmark.name)
      let dropped = await machine.dropped
      precondition(dropped == 0)
    }
  }

  // MARK: AsyncStream consumer task

  do {
    let sink = ReplySink()
    let core = StreamCounterCore(reply: sink.counter)
    let machine = StreamMachine<CounterInput>(resolve: { core.resolve($0) })
    Benchmark("counter:asyncstream", configuration: config) { benchmark async in
      await machine.run(repeatElement(.increment, count: batch), expected: batch)
      sink.verify(batch, benchmark.name)
    }
  }
  do {
    let sink = ReplySink()
    let core = StreamAuthCore(reply: sink.auth)
    let machine = StreamMachine<AuthInput>(resolve: { core.resolve($0) })
    let external: [AuthInput] = (0..<cycles).flatMap { _ in Auth.external }
    Benchmark("auth:asyncstream", configuration: config) { benchmark async in
      await machine.run(external, expected: batch)
      sink.verify(batch, benchmark.name)
      precondition(core.dropped == 0)
    }
  }
}
