import Millrace
import Testing

/// Appends every input to a shared log and echoes it as an output.
enum Logger: Machine {
  final class Log { var entries: [String] = [] }
  typealias Extra = (name: String, log: Log)
  typealias Output = Int
  static func resolve(
    _ input: Int, state: inout Int, extra: Extra, effects: inout Effects<Self>
  ) -> Resolution {
    extra.log.entries.append("\(extra.name)\(input)")
    state = input
    effects.emit(input)
    return .handled
  }
}

/// Logs `n`, then sends itself `n - 1` until 0: a machine that feeds itself.
enum Countdown: Machine {
  typealias Extra = (name: String, log: Logger.Log)
  static func resolve(
    _ input: Int, state: inout Int, extra: Extra, effects: inout Effects<Self>
  ) -> Resolution {
    extra.log.entries.append("\(extra.name)\(input)")
    state = input
    if input > 0 { effects.send(input - 1) }
    return .handled
  }
}

@Suite("Scheduling, capacity and removal")
struct SchedulingTests {
  @Test("inputs are FIFO per machine and machines take turns")
  func fifoAndFair() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let a = try runtime.spawn(Logger.self, state: 0, extra: ("a", log))
    let b = try runtime.spawn(Logger.self, state: 0, extra: ("b", log))
    for n in 1...3 { _ = a.post(n) }
    _ = b.post(1)
    _ = b.post(2)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(log.entries == ["a1", "b1", "a2", "b2", "a3"])
  }

  /// A runtime with a countdown `a` and a logger `b` writing to one log.
  func countdownAndLogger() throws -> (
    Runtime, Logger.Log, MachineHandle<Countdown>, MachineHandle<Logger>
  ) {
    let runtime = Runtime()
    let log = Logger.Log()
    let a = try runtime.spawn(Countdown.self, state: 0, extra: ("a", log))
    let b = try runtime.spawn(Logger.self, state: 0, extra: ("b", log))
    return (runtime, log, a, b)
  }

  @Test("a machine that feeds itself takes one turn at a time while others wait")
  func selfFeedingIsFair() throws {
    let (runtime, log, a, b) = try countdownAndLogger()
    _ = a.post(2)
    _ = b.post(1)
    _ = b.post(2)
    #expect(runtime.dispatch() == 5)
    #expect(log.entries == ["a2", "b1", "a1", "b2", "a0"])
  }

  @Test("a machine that feeds itself yields to a machine its observer posted to")
  func selfFeedingYieldsToObserverPosts() throws {
    let (runtime, log, a, b) = try countdownAndLogger()
    a.observe { event in
      if case .replied(.handled(2, _, _), _) = event { _ = b.post(9) }
    }
    _ = a.post(2)
    #expect(runtime.dispatch() == 4)
    #expect(log.entries == ["a2", "b9", "a1", "a0"])
  }

  @Test("dispatch stops at its turn limit even when one machine has inputs left")
  func turnLimitHoldsForOneMachine() throws {
    let (runtime, log, a, _) = try countdownAndLogger()
    _ = a.post(3)
    _ = a.post(7)
    #expect(runtime.dispatch(limit: 2) == 2)
    #expect(log.entries == ["a3", "a7"])
    #expect(runtime.hasPendingInputs)
    #expect(runtime.dispatch(limit: 1) == 1)
    #expect(log.entries == ["a3", "a7", "a2"])
    #expect(runtime.dispatch() == 9)
    #expect(log.entries.count == 12)
    #expect(!runtime.hasPendingInputs)
    #expect(runtime.dispatch() == 0)
  }

  @Test("a full queue refuses the fifth post and loses none of the first four")
  func overflow() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(inputsPerMachine: 4))
    let log = Logger.Log()
    let machine = try runtime.spawn(Logger.self, state: 0, extra: ("m", log))
    for n in 1...4 { #expect(machine.post(n) == .accepted) }
    #expect(machine.post(5) == .queueFull)
    runtime.dispatch()
    #expect(log.entries == ["m1", "m2", "m3", "m4"])
    #expect(machine.statistics.queueHighWater == 4)
    #expect(machine.statistics.dropped == 1)
    #expect(machine.statistics.posted == 4)
    #expect(machine.statistics.handled == 4)
  }

  @Test("running out of machines is reported, not a crash")
  func machineCapacity() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 2))
    let log = Logger.Log()
    let first = try runtime.spawn(Logger.self, state: 0, extra: ("a", log))
    _ = try runtime.spawn(Logger.self, state: 0, extra: ("b", log))
    #expect(throws: SpawnError.machineSlotsFull) {
      try runtime.spawn(Logger.self, state: 0, extra: ("c", log))
    }
    #expect(runtime.statistics.spawnsRefused == 1)
    runtime.remove(first)
    _ = try runtime.spawn(Logger.self, state: 0, extra: ("d", log))
    #expect(runtime.statistics.machinesHighWater == 2)
  }

  @Test("a machine removed while it waits for its turn keeps its slot until its turn comes")
  func removalWhileReady() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 2))
    let log = Logger.Log()
    let a = try runtime.spawn(Logger.self, state: 0, extra: ("a", log))
    let b = try runtime.spawn(Logger.self, state: 0, extra: ("b", log))
    _ = a.post(1)
    _ = b.post(1)
    runtime.remove(a)
    // a's slot is still linked in the ready list: it is not free yet.
    #expect(throws: SpawnError.machineSlotsFull) {
      try runtime.spawn(Logger.self, state: 0, extra: ("c", log))
    }
    #expect(runtime.dispatch() == 1)
    #expect(log.entries == ["b1"])
    let c = try runtime.spawn(Logger.self, state: 0, extra: ("c", log))
    _ = c.post(2)
    _ = b.post(2)
    #expect(runtime.dispatch() == 2)
    #expect(log.entries == ["b1", "c2", "b2"])
  }

  @Test("removing a machine mid-effect silences it and frees its timers")
  func removalMidEffect() throws {
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let auth = try runtime.spawn(table: authTable(delays: true), state: .loggedOut)
    let recorder = Recorder(auth, in: runtime)
    _ = auth.post(.login)
    driver.runUntilIdle()
    _ = auth.post(.loginOK)
    runtime.remove(auth)
    driver.advance(by: .seconds(5))
    #expect(recorder.events.count == 1)
    #expect(runtime.statistics.timers == 0)
    #expect(runtime.nextDeadline == nil)
    #expect(auth.post(.login) == .noMachine)
    #expect(auth.state == nil)
    #expect(runtime.statistics.machines == 0)
  }

  @Test("a machine removed by its own observer stops applying effects")
  func removalFromObserver() throws {
    let runtime = Runtime()
    let auth = try runtime.spawn(table: authTable(delays: true), state: .loggedOut)
    auth.observe { [unowned runtime] _ in runtime.remove(auth) }
    _ = auth.post(.login)
    _ = auth.post(.logout)
    runtime.dispatch()
    #expect(runtime.statistics.timers == 0)
    #expect(runtime.statistics.machines == 0)
    #expect(runtime.statistics.dispatched == 1)
  }

  @Test("overflowing effect slots, timers and the effect buffer is reported")
  func effectOverflowIsReported() throws {
    let runtime = Runtime(
      capacity: RuntimeCapacity(effectsPerMachine: 2, timers: 3, effectsPerResolution: 2))
    var diagnostics: [Diagnostic] = []
    runtime.onDiagnostic = { diagnostics.append($0) }
    let first = try runtime.spawn(Starter.self, state: [], queues: [.merge, .merge])
    let second = try runtime.spawn(Starter.self, state: [], queues: [.merge, .merge])
    for n in 1...3 { _ = first.post(.start(n)) }
    for n in 1...2 { _ = second.post(.start(n)) }
    let chatty = try runtime.spawn(
      table: Table<Int, Int, Int>(rows: [
        .init(on: .any, from: .any, effects: [.emit(1), .emit(2), .emit(3)])
      ]),
      state: 0)
    let recorder = Recorder(chatty, in: runtime)
    _ = chatty.post(0)
    runtime.dispatch()
    // Machines take turns: first, second, chatty, first, second, first.
    #expect(
      diagnostics == [
        .effectBufferFull(chatty.id, dropped: 1), .timersFull(second.id),
        .effectSlotsFull(first.id),
      ])
    #expect(recorder.outputs == [1, 2])
    // Effect counts are per runtime: the three machines lost one effect each.
    #expect(runtime.statistics.effectsOverflowed == 3)
    #expect(runtime.statistics.timersHighWater == 3)
    #expect(runtime.statistics.diagnostics == 3)
  }

  @Test("an observer that posts does not re-enter dispatch")
  func noReentrancy() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let machine = try runtime.spawn(Logger.self, state: 0, extra: ("m", log))
    var depth = 0
    machine.observe { [unowned runtime] event in
      guard case .replied(let reply, _) = event, reply.input < 3 else { return }
      depth += 1
      #expect(runtime.dispatch() == 0)
      _ = machine.post(reply.input + 1)
      log.entries.append("posted")
      depth -= 1
    }
    _ = machine.post(1)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(log.entries == ["m1", "posted", "m2", "posted", "m3"])
  }

  @Test("replies carry the tag of the post that caused them")
  func tags() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let machine = try runtime.spawn(Logger.self, state: 0, extra: ("m", log))
    var tags: [PostTag] = []
    machine.observe { if case .replied(_, let tag) = $0 { tags.append(tag) } }
    _ = machine.post(1, tag: PostTag(7))
    _ = machine.post(2)
    runtime.dispatch()
    #expect(tags == [PostTag(7), .none])
  }

  @Test("statistics count each resolved input, also when an observer reads them mid-dispatch")
  func dispatchedCountsDuringDispatch() throws {
    let (runtime, _, a, b) = try countdownAndLogger()
    var seen: [UInt64] = []
    a.observe { [unowned runtime] _ in seen.append(runtime.statistics.dispatched) }
    _ = a.post(2)
    _ = b.post(1)
    #expect(runtime.dispatch(limit: 2) == 2)
    #expect(seen == [1])
    #expect(runtime.statistics.dispatched == 2)
    #expect(runtime.dispatch() == 2)
    #expect(seen == [1, 3, 4])
    #expect(runtime.statistics.dispatched == 4)
  }
}
