import Testing

@testable import Millrace

/// Runtime-wide pools (DESIGN §2.4): queued inputs and in-flight effects are cells drawn as
/// needed, with a per-machine limit, and memory is written only as it is used.
@Suite("Pools")
struct PoolTests {
  /// Counts its inputs; `arm` starts `after(1 s, done)` with id `t`, `disarm` cancels it.
  enum Counter: PlainMachine {
    enum Input: Equatable { case tick, arm, disarm, done }
    typealias Output = Int
    static func resolve(
      _ input: Input, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      switch input {
      case .tick: state += 1
      case .arm: effects.after(.seconds(1), send: .done, id: "t")
      case .disarm: effects.cancel("t")
      case .done: effects.emit(state)
      }
      return .handled
    }
  }

  func pool(_ runtime: Runtime, inputs: Bool) -> _CellPool? {
    runtime._pools.first { $0.inputs == inputs }?.pool.pointee
  }

  @Test("idle machines hold no input or effect cells, and records are written as slots are taken")
  func idleMachinesHoldNoCells() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 100_000))
    var handles: [MachineHandle<Counter>] = []
    for _ in 0..<1000 { handles.append(try runtime.spawn(Counter.self, state: 0)) }
    #expect(runtime._registry.initialized == 1000)
    #expect(pool(runtime, inputs: true)?.touched == 0)
    #expect(pool(runtime, inputs: false)?.touched == 0)
    #expect(handles[500].post(.tick) == .accepted)
    #expect(pool(runtime, inputs: true)?.live == 1)
    runtime.dispatch()
    #expect(pool(runtime, inputs: true)?.live == 0)
    #expect(handles[500].state == 1)
  }

  @Test("a full input pool refuses posts to any machine until inputs are dispatched")
  func inputPoolIsShared() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 3, inputsPerMachine: 4, inputs: 5))
    let machines = try (0..<3).map { _ in try runtime.spawn(Counter.self, state: 0) }
    #expect((0..<4).map { _ in machines[0].post(.tick) } == Array(repeating: .accepted, count: 4))
    #expect(machines[1].post(.tick) == .accepted)
    #expect(machines[2].post(.tick) == .queueFull)
    #expect(machines[2].statistics.dropped == 1)
    runtime.dispatch(limit: 1)
    #expect(machines[2].post(.tick) == .accepted)
    runtime.dispatch()
    #expect(machines.map { $0.state } == [4, 1, 1])
    #expect(pool(runtime, inputs: true)?.touched == 5)
  }

  @Test("a full effect pool drops the effect and reports it; a cancel frees its cell")
  func effectPoolIsShared() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 3, effects: 2))
    var diagnostics: [Diagnostic] = []
    var reportedInDispatch: [Bool] = []
    runtime.onDiagnostic = { [unowned runtime] in
      diagnostics.append($0)
      reportedInDispatch.append(runtime.isDispatching)
    }
    let machines = try (0..<3).map { _ in try runtime.spawn(Counter.self, state: 0) }
    for machine in machines { _ = machine.post(.arm) }
    #expect(!runtime.isDispatching)
    runtime.dispatch()
    #expect(!runtime.isDispatching)
    #expect(diagnostics == [.effectSlotsFull(machines[2].id)])
    // Reported from the step's effects: inside the dispatch (`Runtime.isDispatching`).
    #expect(reportedInDispatch == [true])
    #expect(runtime.statistics.timers == 2)
    _ = machines[0].post(.disarm)
    _ = machines[2].post(.arm)
    runtime.dispatch()
    #expect(runtime.statistics.timers == 2)
    #expect(machines[2].effectsInFlight == 1)
    #expect(machines[0].effectsInFlight == 0)
  }

  @Test("after every machine is gone, releaseMemory gives the memory back and no old id revives")
  func releaseMemoryAfterRemovingEverything() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 10_000, timers: 10_000))
    var old: [MachineHandle<Counter>] = []
    for _ in 0..<10_000 { old.append(try runtime.spawn(Counter.self, state: 1)) }
    for handle in old {
      _ = handle.post(.arm)
      _ = handle.post(.tick)
    }
    runtime.dispatch()
    // Only the drained input pool goes; machines, effects and timers are in use.
    let inputBytes = try #require(pool(runtime, inputs: true)?.touchedBytes)
    #expect(runtime.releaseMemory() == inputBytes)
    #expect(runtime._registry.initialized == 10_000)
    #expect(runtime.statistics.timers == 10_000)
    for handle in old { runtime.remove(handle) }
    #expect(runtime.releaseMemory() > 10_000 * MemoryLayout<_MachineRecord>.stride)
    #expect(runtime._registry.initialized == 0)
    #expect(runtime.statistics.timers == 0)
    var new: [MachineHandle<Counter>] = []
    for _ in 0..<10_000 { new.append(try runtime.spawn(Counter.self, state: 2)) }
    // The same slots under generations no earlier machine had.
    #expect(Set(new.map(\.id.index)) == Set(old.map(\.id.index)))
    #expect(old.allSatisfy { !$0.isAlive && $0.post(.tick) == .noMachine && $0.state == nil })
    #expect(new.allSatisfy { $0.state == 2 })
  }

  @Test("releaseMemory handing off gives the same memory to the caller, not to the allocator")
  func releaseMemoryHandingOff() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 10_000, timers: 10_000))
    var machines: [MachineHandle<Counter>] = []
    for _ in 0..<10_000 { machines.append(try runtime.spawn(Counter.self, state: 1)) }
    for handle in machines { _ = handle.post(.arm) }
    runtime.dispatch()
    for handle in machines { runtime.remove(handle) }
    let records = runtime._registry.records
    var handed: [UnsafeMutableRawPointer] = []
    let released = runtime.releaseMemory { handed.append($0) }
    #expect(released > 10_000 * MemoryLayout<_MachineRecord>.stride)
    // The records, the timer tables and the drained input pool, each once.
    #expect(handed.contains(UnsafeMutableRawPointer(records)))
    #expect(handed.count >= 3 && Set(handed).count == handed.count)
    #expect(runtime._registry.records != records)
    // The runtime works on its fresh memory while the caller still holds the old.
    let next = try runtime.spawn(Counter.self, state: 7)
    #expect(next.post(.tick) == .accepted)
    runtime.dispatch()
    #expect(next.state == 8)
    for block in handed { block.deallocate() }
    // Nothing more to give back.
    #expect(runtime.releaseMemory { _ in Issue.record("handed off twice") } == 0)
  }

  @Test("the registry is not released while its ready list names a slot, then it is")
  func releaseWaitsForTheReadyList() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
    let machine = try runtime.spawn(Counter.self, state: 0)
    var seen = 0
    var canceller: Observation?
    let watcher = try #require(machine.observe { _ in seen += 1 })
    // An observer cancelled during a dispatch is released at the release slot the dispatch
    // puts on the ready list; a dispatch of one step returns before it gets there.
    canceller = machine.observe { _ in _ = watcher.cancel() }
    #expect(machine.post(.tick) == .accepted)
    runtime.dispatch(limit: 1)
    runtime.remove(machine)
    runtime.releaseMemory(above: 0)
    #expect(runtime._registry.initialized == 1)
    runtime.dispatch()
    #expect(runtime.releaseMemory(above: 0) > 0)
    #expect(runtime._registry.initialized == 0)
    let next = try runtime.spawn(Counter.self, state: 5)
    #expect(next.post(.tick) == .accepted)
    runtime.dispatch()
    #expect(next.state == 6)
    #expect(seen <= 1)
    _ = canceller
  }

  @Test("an effect cell written afresh after a release never repeats an earlier generation")
  func generationsSurviveRelease() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 2))
    let first = try runtime.spawn(Counter.self, state: 0)
    var outputs: [Int] = []
    first.observe { if case .emitted(let value) = $0 { outputs.append(value) } }
    _ = first.post(.arm)
    runtime.dispatch()
    let view = _TypedMachine<Counter>(registry: runtime._registry, index: first.id.index)
    let cell = try #require(view.record.pointee.effectHead == 0 ? UInt32(0) : nil)
    let stale = view.effects.slot(cell).pointee.generation
    // The timer fires behind a `disarm`: its delivery is queued with the effect's token, and
    // the effect is cancelled before the delivery is dispatched.
    _ = first.post(.disarm)
    runtime.advance(to: runtime.now.advanced(by: .seconds(1)))
    runtime.dispatch(limit: 1)
    #expect(runtime.releaseMemory(above: 0) > 0)
    let second = try runtime.spawn(Counter.self, state: 0)
    _ = second.post(.arm)
    runtime.dispatch()
    #expect(outputs.isEmpty)
    #expect(runtime.statistics.discarded == 1)
    let reused = _TypedMachine<Counter>(registry: runtime._registry, index: second.id.index)
    #expect(reused.record.pointee.effectHead == cell)
    #expect(reused.effects.slot(cell).pointee.generation > stale)
    #expect(!view.effects.isLive(slot: cell, generation: stale))
  }

  @Test("observeAll sees every machine of a type, with its id, across queue layouts")
  func observeAllSeesEveryMachine() throws {
    let runtime = Runtime()
    var seen: [(MachineID, Int)] = []
    let first = try runtime.spawn(Counter.self, state: 0)
    runtime.observeAll(Counter.self) { id, event in
      if case .replied(.handled(_, _, let to), _) = event { seen.append((id, to)) }
    }
    let second = try runtime.spawn(Counter.self, state: 10, queues: [.latest(max: 1)])
    let other = try runtime.spawn(FootprintTests.Echo.self, state: 0)
    _ = first.post(.tick)
    _ = second.post(.tick)
    _ = other.post(5)
    runtime.dispatch()
    #expect(seen.map(\.0) == [first.id, second.id])
    #expect(seen.map(\.1) == [1, 11])
    // A later call replaces the observer.
    var replaced = 0
    runtime.observeAll(Counter.self) { _, _ in replaced += 1 }
    _ = first.post(.tick)
    runtime.dispatch()
    #expect(seen.count == 2)
    #expect(replaced == 1)
  }

  @Test("observeAll sees the outputs of machines that have no observer of their own")
  func observeAllSeesOutputs() throws {
    let runtime = Runtime()
    var outputs: [(MachineID, Int)] = []
    runtime.observeAll(Counter.self) { id, event in
      if case .emitted(let output) = event { outputs.append((id, output)) }
    }
    let machine = try runtime.spawn(Counter.self, state: 4)
    _ = machine.post(.done)
    runtime.dispatch()
    #expect(outputs.map(\.0) == [machine.id])
    #expect(outputs.map(\.1) == [4])
  }

  @Test("a lookup finds live machines of its type by id, and nothing else")
  func lookupByID() throws {
    let runtime = Runtime()
    let counters = runtime.lookup(Counter.self)
    let echoes = runtime.lookup(FootprintTests.Echo.self)
    let counter = try runtime.spawn(Counter.self, state: 3)
    let echo = try runtime.spawn(FootprintTests.Echo.self, state: 0)
    #expect(counters.handle(counter.id)?.state == 3)
    #expect(counters.handle(echo.id) == nil)
    #expect(echoes.handle(counter.id) == nil)
    #expect(echoes.handle(echo.id)?.id == echo.id)
    #expect(counters.handle(MachineID(index: 99, generation: 1)) == nil)
    runtime.remove(counter)
    #expect(counters.handle(counter.id) == nil)
    let again = try runtime.spawn(Counter.self, state: 5)
    #expect(again.id.index == counter.id.index)
    #expect(counters.handle(counter.id) == nil)
    #expect(counters.handle(again.id)?.state == 5)
  }

  @Test("an observer may replace observeAll and grow the variant table during dispatch")
  func observerReplacesItselfAndAddsKinds() throws {
    let runtime = Runtime()
    var first = 0
    var second = 0
    var retired = 0
    let machine = try runtime.spawn(Counter.self, state: 0)
    runtime.observeAll(Counter.self) { [unowned runtime] _, event in
      guard case .replied = event else { return }
      first += 1
      // Replaced while it runs, and the variant table grows (new queue layouts) meanwhile:
      // the view in dispatch still reads its entry and this observer's box.
      runtime.observeAll(Counter.self) { _, event in
        if case .replied = event { second += 1 }
      }
      retired = runtime._retiredObservers.count
      for limit in 1...4 {
        _ = try? runtime.spawn(Counter.self, state: 0, queues: [.latest(max: limit)])
      }
    }
    _ = machine.post(.tick)
    _ = machine.post(.tick)
    runtime.dispatch()
    #expect(first == 1)
    #expect(second == 1)
    #expect(runtime._variants.count == 5)
    // The replaced one was kept while dispatching, and released when the dispatch returned.
    #expect(retired == 1)
    #expect(runtime._retiredObservers.isEmpty)
    #expect(runtime._observedTypes.count == 1)
  }
}
