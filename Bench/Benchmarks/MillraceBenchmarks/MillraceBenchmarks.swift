// Millrace's own hot paths, measured on the same run as the peers (PeerBenchmarks), under the
// names `scripts/report.py` maps to DESIGN.md §6 budgets. The paths themselves live in
// Sources/MillraceWorkloads (HotPaths.swift), shared with the instruction counter
// (Sources/instructions, `scripts/instructions.sh`), so that the time and the instruction
// count of a budget are always of the same code. Every per-operation benchmark runs
// `BenchConfig.batch` operations per iteration (`.kilo` scaling) unless it says otherwise,
// and counts mallocs: any allocation on a hot path fails `make bench`.

import BenchSupport
import Benchmark
import CHeapBytes
import Foundation
import Millrace
import MillraceWorkloads

let benchmarks: @Sendable () -> Void = {
  let config = BenchConfig.perInput()

  // MARK: post + dispatch + resolve + reply

  registerHotPath(CounterPath(), config)
  registerHotPath(AuthCodePath(), config)
  registerHotPath(AuthTablePath(), config)
  registerHotPath(AuthDataPath(), config)
  registerPaired(AuthDataPath(), against: AuthTablePath(), config)

  // MARK: effects

  /// Cancels are measured 8 per iteration (CancelRig), not a batch.
  var cancelConfig = config
  cancelConfig.scalingFactor = .one
  registerHotPath(EffectStartAfterPath(), config)
  registerHotPath(EffectReplaceLatestPath(), config)
  registerHotPath(EffectQueueOldestPath(), config)
  registerHotPath(EffectCancelPath(), cancelConfig)
  registerHotPath(EffectCyclePath(), config)

  // MARK: timers

  registerHotPath(TimerArmPath(), config)
  registerHotPath(TimerCancelPath(), cancelConfig)
  registerHotPath(
    TimerFirePath(),
    Benchmark.Configuration(
      metrics: BenchConfig.metrics, timeUnits: .nanoseconds, warmupIterations: 0,
      scalingFactor: .mega, maxDuration: .seconds(10),
      maxIterations: BenchConfig.quick ? 5 : 3))

  // MARK: memory

  Benchmark(
    "memory:per-machine",
    configuration: .init(
      metrics: [BenchConfig.bytesPerMachine], warmupIterations: 0, maxIterations: 1)
  ) { benchmark in
    // What a machine costs beyond its queue slots and its own state and extra: the record
    // the runtime reserves per machine slot at creation, plus what spawns allocate beyond
    // the slots and the state (blocks come from per-kind chunks of up to 64), as the heap
    // sees it (glibc's mallinfo2: in-use bytes with their headers and 16-byte rounding, and
    // mmap()ed tables), over 10,000 machines.
    let count = 10_000
    func heap() -> Int { Int(bench_heap_bytes_in_use()) }
    func created(machines: Int) -> Int {
      let before = heap()
      let runtime = Runtime(capacity: RuntimeCapacity(machines: machines))
      let after = heap()
      withExtendedLifetime(runtime) {}
      return after - before
    }
    /// Heap bytes `count` spawns keep.
    func spawned(inputs: Int, effects: Int) -> Int {
      let runtime = Runtime(
        capacity: RuntimeCapacity(
          machines: count + 1, inputsPerMachine: inputs, effectsPerMachine: effects))
      var handles: [MachineHandle<CounterMachine>] = []
      handles.reserveCapacity(count + 1)
      // The first spawn also makes the machine variant, shared by the others.
      handles.append(try! runtime.spawn(CounterMachine.self, state: 0))
      let before = heap()
      for _ in 0..<count { handles.append(try! runtime.spawn(CounterMachine.self, state: 0)) }
      return heap() - before
    }
    let record = (created(machines: 2 * count) - created(machines: count)) / count
    let base = spawned(inputs: 1, effects: 1)
    // Slopes over 8 more slots: 8 slots of any size add a multiple of 16 bytes, no rounding.
    let inputSlot = (spawned(inputs: 9, effects: 1) - base) / (8 * count)
    let effectSlot = (spawned(inputs: 1, effects: 9) - base) / (8 * count)
    let own = MemoryLayout<CounterMachine.State>.size + MemoryLayout<CounterMachine.Extra>.size
    let block = base / count - inputSlot - effectSlot - own
    let overhead = record + block
    print(
      "memory: record \(record) B per machine slot; a spawn keeps \(base / count) B: \(inputSlot) B of input slot, \(effectSlot) B of effect slot, \(own) B of state and \(block) B of padding and chunk overhead (links, allocator headers, rounding): \(overhead) bytes per machine beyond its queue slots and own data"
    )
    benchmark.measurement(BenchConfig.bytesPerMachine, overhead)
  }
}
