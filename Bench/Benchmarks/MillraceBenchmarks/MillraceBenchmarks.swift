// Millrace's own hot paths, measured on the same run as the peers (PeerBenchmarks), under the
// names `scripts/report.py` maps to DESIGN.md §6 budgets. Every per-operation benchmark runs
// `BenchConfig.batch` operations per iteration (`.kilo` scaling) and counts mallocs: any
// allocation on a hot path fails `make bench`.

import BenchSupport
import Benchmark
import CHeapBytes
import Foundation
import Millrace
import MillraceHost

let benchmarks: @Sendable () -> Void = {
  let config = BenchConfig.perInput()
  let batch = BenchConfig.batch
  let cycles = Auth.cyclesPerBatch

  // MARK: post + dispatch + resolve + reply

  /// Folds one reply of an auth machine into `sink`, whatever the machine's own types.
  @inline(__always)
  func record<Input, State>(
    _ reply: Reply<Input, State>, into sink: ReplySink, input: (Input) -> AuthInput,
    state: (State) -> AuthState
  ) {
    switch reply {
    case .success(let given, let from, let to):
      sink.auth(AuthReply(input: input(given), from: state(from), to: state(to), handled: true))
    case .failure(let given, let current):
      sink.auth(
        AuthReply(input: input(given), from: state(current), to: state(current), handled: false))
    }
  }

  do {
    let sink = ReplySink()
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
    let counter = runtime.spawn(CounterMachine.self, state: 0)!
    counter.observe { event in
      if case .replied(.success(_, let from, let to), _) = event {
        sink.counter(CounterReply(from: from, to: to))
      }
    }
    Benchmark("counter:millrace-code", configuration: config) { benchmark in
      for _ in benchmark.scaledIterations {
        precondition(counter.post(.increment) == .accepted)
        runtime.dispatch()
      }
      sink.verify(batch, benchmark.name)
    }
  }
  do {
    let sink = ReplySink()
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
    let auth = runtime.spawn(AuthMachine.self, state: .loggedOut)!
    auth.observe { event in
      guard case .replied(let reply, _) = event else { return }
      record(reply, into: sink, input: { $0 }, state: { $0 })
    }
    Benchmark("auth:millrace-code", configuration: config) { benchmark in
      for _ in 0..<cycles {
        _ = auth.post(.login)
        runtime.dispatch()
        _ = auth.post(.logout)
        runtime.dispatch()
      }
      sink.verify(batch, benchmark.name)
    }
  }
  do {
    // The same machine as a table loaded from a machine file: inputs and states are the
    // file's interned indices; `send` stands in for the 1 s `after` as in the other peers.
    let json = """
      {"kind": "auth", "initial": "loggedOut",
       "states": ["loggedOut", "loggingIn", "loggedIn", "loggingOut"],
       "transitions": [
         {"on": "login", "from": "loggedOut", "to": "loggingIn", "effects": [{"send": "loginOK"}]},
         {"on": "loginOK", "from": "loggingIn", "to": "loggedIn"},
         {"on": "logout", "from": "loggedIn", "to": "loggingOut", "effects": [{"send": "logoutOK"}]},
         {"on": "logoutOK", "from": "loggingOut", "to": "loggedOut"},
         {"on": "forceLogout", "from": ["loggingIn", "loggedIn"], "to": "loggingOut"}]}
      """
    let definition = try! KindDefinition(json: Data(json.utf8), file: "auth.json")
    let kind = FileKind(definition)
    let login = definition.inputs.index(of: "login")!
    let logout = definition.inputs.index(of: "logout")!
    let sink = ReplySink()
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
    let auth = runtime.spawn(
      FileMachine.self, state: definition.initial, extra: kind, queues: kind.queues)!
    auth.observe { event in
      guard case .replied(let reply, _) = event else { return }
      record(
        reply, into: sink, input: { AuthInput(rawValue: UInt8(truncatingIfNeeded: $0))! },
        state: { AuthState(rawValue: UInt8(truncatingIfNeeded: $0))! })
    }
    Benchmark("auth:millrace-table", configuration: config) { benchmark in
      for _ in 0..<cycles {
        _ = auth.post(login)
        runtime.dispatch()
        _ = auth.post(logout)
        runtime.dispatch()
      }
      sink.verify(batch, benchmark.name)
    }
  }

  // MARK: effects

  /// A runtime with one effect machine holding room for a whole batch of in-flight effects.
  func effectRig(slots: Int = 2 * batch) -> (Runtime, MachineHandle<EffectMachine>) {
    let runtime = Runtime(
      capacity: RuntimeCapacity(
        machines: 4, inputsPerMachine: 2 * batch, effectsPerMachine: slots, timers: 4 * batch))
    let machine = runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)!
    return (runtime, machine)
  }

  /// Posts `input` and resolves it (with every effect it starts or cancels).
  @inline(__always)
  func run(
    _ runtime: Runtime, _ machine: MachineHandle<EffectMachine>, _ input: EffectMachine.Input
  ) {
    precondition(machine.post(input) == .accepted)
    runtime.dispatch()
  }

  /// Cancels measured alone: an iteration arms `cancelsPerIteration` effects (ids 1...,
  /// after `milliseconds(i)`) on `machine` before the measurement, then measures cancelling
  /// each by id (the input's post and dispatch, the scan of the machine's slots, the timer's
  /// removal from the heap and the queue bookkeeping). A few per iteration, not a batch of
  /// 1,000: cancel by id scans the machine's slots, and a real machine has a handful.
  let cancelsPerIteration = 8
  var cancelConfig = config
  cancelConfig.scalingFactor = .one
  func measureCancels(
    _ runtime: Runtime, _ machine: MachineHandle<EffectMachine>, _ benchmark: Benchmark,
    milliseconds: (Int) -> Int64
  ) {
    let before = runtime.statistics.effectsCancelled
    for index in 0..<cancelsPerIteration {
      run(
        runtime, machine,
        .arm(queue: 0, id: UInt64(1 + index), milliseconds: milliseconds(index)))
    }
    benchmark.startMeasurement()
    for index in 0..<cancelsPerIteration {
      run(runtime, machine, .cancel(UInt64(1 + index)))
    }
    benchmark.stopMeasurement()
    precondition(runtime.statistics.effectsCancelled == before + UInt64(cancelsPerIteration))
  }

  do {
    let (runtime, machine) = effectRig()
    Benchmark("effect:start-after", configuration: config) { benchmark in
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        run(runtime, machine, .arm(queue: 0, id: 1, milliseconds: 60_000))
      }
      benchmark.stopMeasurement()
      run(runtime, machine, .cancel(1))
    }
  }
  do {
    let (runtime, machine) = effectRig()
    run(runtime, machine, .arm(queue: 1, id: 1, milliseconds: 60_000))
    Benchmark("effect:replace-latest", configuration: config) { benchmark in
      for _ in benchmark.scaledIterations {
        run(runtime, machine, .arm(queue: 1, id: 1, milliseconds: 60_000))
      }
      precondition(runtime.statistics.effectsCancelled > 0)
    }
  }
  do {
    let (runtime, machine) = effectRig()
    run(runtime, machine, .arm(queue: 2, id: 1, milliseconds: 60_000))
    Benchmark("effect:queue-oldest", configuration: config) { benchmark in
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        run(runtime, machine, .arm(queue: 2, id: 2, milliseconds: 60_000))
      }
      benchmark.stopMeasurement()
      run(runtime, machine, .cancel(2))
    }
  }
  do {
    // A machine with the default 16 effect slots, 8 of them busy with other effects.
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4, effectsPerMachine: 16))
    let machine = runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)!
    for id in 10..<18 {
      run(runtime, machine, .arm(queue: 0, id: UInt64(id), milliseconds: 60_000))
    }
    Benchmark("effect:cancel", configuration: cancelConfig) { benchmark in
      measureCancels(runtime, machine, benchmark, milliseconds: { _ in 60_000 })
    }
  }
  do {
    let (runtime, machine) = effectRig()
    var now = runtime.now
    Benchmark("effect:cycle", configuration: config) { benchmark in
      for _ in benchmark.scaledIterations {
        run(runtime, machine, .arm(queue: 0, id: 0, milliseconds: 1))
        now = now.advanced(by: .milliseconds(1))
        runtime.advance(to: now)
        runtime.dispatch()
      }
    }
  }

  // MARK: timers

  do {
    // Arming into a heap that already holds 10,000 timers, at spread deadlines.
    let (runtime, machine) = effectRig(slots: 16 * batch)
    for index in 0..<10_000 {
      run(runtime, machine, .arm(queue: 0, id: 9, milliseconds: 60_000 + Int64(index)))
    }
    var spread: Int64 = 0
    Benchmark("timer:arm", configuration: config) { benchmark in
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        spread = (spread &+ 7_919) % 100_000
        run(runtime, machine, .arm(queue: 0, id: 1, milliseconds: 1_000 + spread))
      }
      benchmark.stopMeasurement()
      run(runtime, machine, .cancel(1))
    }
  }
  do {
    // Cancelling armed timers of a machine while 10,000 others (of 100 other machines) sit
    // in the heap; the cancelled ones are due before all of those.
    let runtime = Runtime(
      capacity: RuntimeCapacity(machines: 128, effectsPerMachine: 128, timers: 16_384))
    for _ in 0..<100 {
      let other = runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)!
      for index in 0..<100 {
        run(runtime, other, .arm(queue: 0, id: 9, milliseconds: 60_000 + Int64(index)))
      }
    }
    let machine = runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)!
    Benchmark("timer:cancel", configuration: cancelConfig) { benchmark in
      measureCancels(runtime, machine, benchmark, milliseconds: { 30_000 + Int64($0) })
    }
  }
  do {
    // 1,000 machines × 1,000 timers each fire when time passes them: per fire, the timer
    // pop, the input queued, and its dispatch.
    let count = 1_000
    let runtime = Runtime(
      capacity: RuntimeCapacity(
        machines: count, inputsPerMachine: 1_000, effectsPerMachine: 1_000,
        timers: count * 1_000))
    let machines = (0..<count).map { _ in runtime.spawn(EffectMachine.self, state: 0)! }
    var now = runtime.now
    let fireConfig = Benchmark.Configuration(
      metrics: BenchConfig.metrics, timeUnits: .nanoseconds, warmupIterations: 0,
      scalingFactor: .mega, maxDuration: .seconds(10),
      maxIterations: BenchConfig.quick ? 5 : 3)
    Benchmark("timer:fire-1M", configuration: fireConfig) { benchmark in
      for machine in machines {
        for index in 0..<1_000 {
          _ = machine.post(.arm(queue: 0, id: 0, milliseconds: 1 + Int64(index % 100)))
        }
      }
      while runtime.hasPendingInputs { runtime.dispatch() }
      now = now.advanced(by: .seconds(1))
      benchmark.startMeasurement()
      runtime.advance(to: now)
      while runtime.hasPendingInputs { runtime.dispatch() }
      benchmark.stopMeasurement()
      precondition(runtime.statistics.timers == 0)
    }
  }

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
      // The first spawn also makes the machine kind, shared by the others.
      handles.append(runtime.spawn(CounterMachine.self, state: 0)!)
      let before = heap()
      for _ in 0..<count { handles.append(runtime.spawn(CounterMachine.self, state: 0)!) }
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
