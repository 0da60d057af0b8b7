import Millrace
import Testing

/// `start(n)` starts `after(100 ms, done(n))` on queue 1, whose policy the test chooses.
enum Starter: Machine {
  enum Input: Equatable { case start(Int), done(Int) }
  typealias Queue = EffectQueue
  static func resolve(
    _ input: Input, state: inout [Int], extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .start(let n): effects.after(.milliseconds(100), send: .done(n), on: EffectQueue(1))
    case .done(let n): state.append(n)
    }
    return .handled
  }
}

/// `start(n, queue)` starts `after(100 ms, done(n))` on `queue` with id n; `cancel(n)`
/// cancels id n.
enum QueuedStarter: Machine {
  enum Input: Equatable { case start(Int, queue: UInt8), cancel(Int), done(Int) }
  typealias Queue = EffectQueue
  static func resolve(
    _ input: Input, state: inout [Int], extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .start(let n, let queue):
      effects.after(
        .milliseconds(100), send: .done(n), on: EffectQueue(queue),
        id: EffectID(rawValue: UInt64(n)))
    case .cancel(let n): effects.cancel(EffectID(rawValue: UInt64(n)))
    case .done(let n): state.append(n)
    }
    return .handled
  }
}

/// Names its queues: `start(n)` starts `after(100 ms, done(n))` on `login`, which keeps only
/// the latest; `tick(n)` on `main`, which keeps every one.
enum NamedQueues: Machine {
  enum Queue: UInt8, EffectQueueSet {
    case main, login
    var policy: QueuePolicy { self == .login ? .latest(max: 1) : .merge }
  }
  enum Input: Equatable { case start(Int), tick(Int), done(Int) }
  static func resolve(
    _ input: Input, state: inout [Int], extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .start(let n): effects.after(.milliseconds(100), send: .done(n), on: .login)
    case .tick(let n): effects.after(.milliseconds(100), send: .done(n))
    case .done(let n): state.append(n)
    }
    return .handled
  }
}

/// Declares queues whose raw values do not count from 0: no layout can be made of them.
enum MisnumberedQueues: Machine {
  enum Queue: UInt8, EffectQueueSet {
    case main = 1, other
    var policy: QueuePolicy { .merge }
  }
  static func resolve(
    _ input: Int, state: inout Int, extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    .handled
  }
}

/// Records an effect by position on a queue past its two (the typed methods cannot).
enum PastItsQueues: Machine {
  typealias Queue = NamedQueues.Queue
  static func resolve(
    _ input: Int, state: inout Int, extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    effects.record(.after(.milliseconds(1), input, queue: EffectQueue(UInt8(input))))
    return .handled
  }
}

@Suite("Queue policies")
struct QueuePolicyTests {
  @Test("a machine's own queue type gives its layout, and its effects run on the queue named")
  func namedQueues() throws {
    #expect(NamedQueues.Queue.policies == [.merge, .latest(max: 1)])
    #expect(DefaultQueue.policies == [.merge])
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(NamedQueues.self, state: [])
    for input in [NamedQueues.Input.start(1), .start(2), .tick(3), .tick(4)] {
      _ = machine.post(input)
    }
    driver.advance(by: .milliseconds(100))
    // `login` kept the latest of 1 and 2; `main` (the default queue) kept both ticks.
    #expect(machine.state?.sorted() == [2, 3, 4])
    #expect(runtime.statistics.effectsCancelled == 1)
  }

  @Test("queues whose raw values do not count from 0 stop the program at the first spawn")
  func misnumberedQueues() async {
    await #expect(processExitsWith: .failure) {
      _ = try? Runtime().spawn(MisnumberedQueues.self, state: 0)
    }
  }

  @Test("an effect recorded on a queue its machine lacks stops the program, not runs elsewhere")
  func effectOnMissingQueue() async throws {
    // The last queue the machine has is fine ...
    let runtime = Runtime()
    let machine = try runtime.spawn(PastItsQueues.self, state: 0)
    _ = machine.post(1)
    runtime.dispatch()
    #expect(runtime.statistics.effectsStarted == 1)
    // ... the next one is not.
    await #expect(processExitsWith: .failure) {
      let runtime = Runtime()
      let machine = try? runtime.spawn(PastItsQueues.self, state: 0)
      _ = machine?.post(2)
      _ = runtime.dispatch()
    }
  }

  struct Case: CustomTestStringConvertible, Sendable {
    let policy: QueuePolicy
    /// (effect number, completion time in ms)
    let completions: [(Int, UInt64)]
    var testDescription: String { "\(policy)" }
  }

  static let cases: [Case] = [
    Case(policy: .merge, completions: [(1, 100), (2, 110), (3, 120)]),
    Case(policy: .latest(max: 1), completions: [(3, 120)]),
    Case(policy: .latest(max: 2), completions: [(2, 110), (3, 120)]),
    Case(policy: .oldest(max: 1, .suspendNew), completions: [(1, 100), (2, 200), (3, 300)]),
    Case(policy: .oldest(max: 1, .discardNew), completions: [(1, 100)]),
    Case(policy: .oldest(max: 2, .suspendNew), completions: [(1, 100), (2, 110), (3, 200)]),
  ]

  @Test("three effects started 10 ms apart complete as the policy says", arguments: cases)
  func threeDelayedEffects(_ testCase: Case) throws {
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Starter.self, state: [], queues: [.merge, testCase.policy])
    let recorder = Recorder(machine, in: runtime)
    for n in 1...3 {
      _ = machine.post(.start(n))
      driver.advance(by: .milliseconds(n < 3 ? 10 : 0))
    }
    driver.advance(by: .seconds(1))
    let completions: [(Int, UInt64)] = recorder.events.compactMap {
      guard case .done(let n) = $0.event.reply?.input else { return nil }
      return (n, $0.at.nanoseconds / 1_000_000)
    }
    #expect(completions.map(\.0) == testCase.completions.map(\.0))
    #expect(completions.map(\.1) == testCase.completions.map(\.1))
    #expect(machine.state == testCase.completions.map(\.0))
    #expect(runtime.statistics.timers == 0)
  }

  @Test(
    "a cancel by id starts what waited on the queue it freed; the other queue goes on as before",
    arguments: [1, 2, 70])
  func cancelStartsWaiting(_ queue: Int) throws {
    // `queue` and the queue after it are oldest(1, suspendNew): effect 1 runs and effect 2
    // waits on `queue`, effect 3 runs and effect 4 waits on the next one. Queues from 63 on
    // share one bit of the cancel's record of the queues it touched.
    let count = queue + 2
    let policies =
      [QueuePolicy.merge] + Array(repeating: .oldest(max: 1, .suspendNew), count: count - 1)
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(QueuedStarter.self, state: [], queues: policies)
    let next = UInt8(queue + 1)
    for (n, on) in [(1, UInt8(queue)), (2, UInt8(queue)), (3, next), (4, next)] {
      _ = machine.post(.start(n, queue: on))
    }
    driver.advance(by: .milliseconds(10))
    _ = machine.post(.cancel(1))
    driver.advance(by: .milliseconds(0))
    // Effect 2 starts at 10 ms, when 1 is cancelled; 3 ends at 100 ms and 4 starts then.
    #expect(machine.effectsInFlight == 3)
    driver.advance(by: .milliseconds(90))
    #expect(machine.state == [3])
    driver.advance(by: .milliseconds(10))
    #expect(machine.state == [3, 2])
    driver.advance(by: .milliseconds(90))
    #expect(machine.state == [3, 2, 4])
    #expect(machine.effectsInFlight == 0)
  }

  @Test(
    "effectsInFlight counts started and waiting effects until they finish, and is 0 once removed")
  func effectsInFlight() throws {
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(
      Starter.self, state: [], queues: [.merge, .oldest(max: 1, .suspendNew)])
    #expect(machine.effectsInFlight == 0)
    #expect(machine.timers.isEmpty)
    _ = machine.post(.start(1))
    _ = machine.post(.start(2))
    driver.advance(by: .milliseconds(0))
    // One running, one waiting on the queue: both in flight, both listed.
    #expect(machine.effectsInFlight == 2)
    #expect(machine.timers.count == 2)
    driver.advance(by: .milliseconds(100))
    #expect(machine.effectsInFlight == 1)
    driver.advance(by: .milliseconds(100))
    #expect(machine.effectsInFlight == 0)
    #expect(machine.timers.isEmpty)
    _ = machine.post(.start(3))
    driver.advance(by: .milliseconds(0))
    #expect(machine.effectsInFlight == 1)
    runtime.remove(machine)
    #expect(machine.effectsInFlight == 0)
  }
}
