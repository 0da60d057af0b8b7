import Foundation
import Millrace
import Synchronization
import Testing

@testable import MillraceUV

/// Adds each input to its total; rejects negative inputs.
enum Accumulator: PlainMachine {
  static func resolve(
    _ input: Int, state: inout Int, effects: inout Effects<Self>
  ) -> Resolution {
    guard input >= 0 else { return .rejected }
    state += input
    return .handled
  }
}

/// Values collected from any thread.
final class Collected<Value: Sendable>: Sendable {
  private let values = Mutex<[Value]>([])
  func append(_ value: Value) { values.withLock { $0.append(value) } }
  var all: [Value] { values.withLock { $0 } }
}

/// A task executor with a thread of its own: the tasks of a `RemoteMachineTests` run (and
/// their child tasks, which inherit it) never wait for one of Swift concurrency's shared
/// threads, which the test itself and other tests running meanwhile may all be holding.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var stopped = false

  init() {
    spawnThread { self.work() }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Lets the thread end once the jobs queued so far ran.
  func shutdown() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }

  private func work() {
    while true {
      condition.lock()
      while jobs.isEmpty && !stopped { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

@Suite("RemoteMachine", .serialized)
struct RemoteMachineTests {
  /// Runs an event loop with an accumulator behind a `RemoteMachine` on this thread, and
  /// `body` in a task on a `ThreadExecutor`; the loop stops when `body` is done. `onLoop`
  /// runs on the loop thread before the loop starts.
  func run(
    inputCapacity: Int? = nil,
    onLoop: (MachineHandle<Accumulator>, Runtime) -> Void = { _, _ in },
    _ body: @escaping @Sendable (RemoteMachine<Accumulator>) async -> Void
  ) throws {
    let loop = try EventLoop()
    let runtime = Runtime()
    let driver = RuntimeLoop(loop: loop, runtime: runtime)
    let machine = try runtime.spawn(Accumulator.self, state: 0, inputCapacity: inputCapacity)
    let remote = try RemoteMachine(machine, driver: driver)
    // As a host does: the remote's own turn-end check must survive it.
    driver.onTurnEnd = {}
    let stop = try Inbox<Bool>(loop: loop, capacity: 1) { _ in loop.stop() }
    let stopper = stop.sender
    onLoop(machine, runtime)
    let executor = ThreadExecutor()
    defer { executor.shutdown() }
    Task(executorPreference: executor) {
      await body(remote)
      stopper.post(true)
    }
    runLoop(loop, timeout: 30)
    try closeWithin(loop)
  }

  @Test("sends from many tasks each get their own reply, in each task's order")
  func sendsFromTasks() throws {
    let replies = Collected<(task: Int, input: Int, to: Int)>()
    try run { remote in
      await withTaskGroup(of: Void.self) { group in
        for task in 0..<4 {
          group.addTask {
            for index in 0..<200 {
              guard
                case .handled(let input, _, let to) = try? await remote.send(
                  task * 1_000 + index + 1)
              else { continue }
              replies.append((task, input, to))
            }
          }
        }
      }
    }
    let all = replies.all
    #expect(all.count == 800)
    for task in 0..<4 {
      let inputs = all.filter { $0.task == task }.map(\.input)
      #expect(inputs == (1...200).map { task * 1_000 + $0 })
    }
    // Each reply's total is a distinct prefix sum: no reply was given twice or to another.
    #expect(Set(all.map(\.to)).count == 800)
  }

  @Test("a rejected input is a rejected reply, not an error")
  func rejection() throws {
    let result = Collected<Bool>()
    try run { remote in
      if case .rejected(let input, let state) = try? await remote.send(-1) {
        result.append(input == -1 && state == 0)
      }
    }
    #expect(result.all == [true])
  }

  @Test("the event stream sees every reply from the moment it subscribed, then finishes")
  func events() throws {
    let seen = Collected<Int>()
    try run { remote in
      guard let events = try? remote.events() else { return }
      // The subscription reaches the loop before the sends behind it in the inbox.
      for value in 1...5 { _ = try? await remote.send(value) }
      remote.close()
      for await event in events {
        if case .replied(.handled(let input, _, _), _) = event { seen.append(input) }
      }
    }
    #expect(seen.all == [1, 2, 3, 4, 5])
  }

  @Test("the event stream finishes when the machine is removed, after its last event")
  func eventsEndWithTheMachine() throws {
    let seen = Collected<Int>()
    try run(onLoop: { machine, runtime in
      machine.observe { [unowned runtime] _ in runtime.remove(machine) }
    }) { remote in
      guard let events = try? remote.events() else { return }
      _ = try? await remote.send(1)
      // Without the end of the stream, this would wait until the loop's time limit.
      for await event in events {
        if case .replied(.handled(let input, _, _), _) = event { seen.append(input) }
      }
    }
    #expect(seen.all == [1])
  }

  @Test("a stream whose reader fell behind keeps its newest events and counts the others")
  func eventsDropped() throws {
    let seen = Collected<Int>()
    let dropped = Collected<Int>()
    try run { remote in
      guard let events = try? remote.events(bufferingNewest: 2) else { return }
      // Nobody reads while the five replies come: the buffer keeps the last two.
      for value in 1...5 { _ = try? await remote.send(value) }
      remote.close()
      for await event in events {
        if case .replied(.handled(let input, _, _), _) = event { seen.append(input) }
      }
      dropped.append(events.dropped)
    }
    #expect(seen.all == [4, 5])
    #expect(dropped.all == [3])
  }

  @Test("a stream whose iteration ended leaves the loop at its next turn end, no command sent")
  func endedStreamUnsubscribes() throws {
    let runtime = Runtime()
    let side = RemoteMachine<Accumulator>.LoopSide(
      handle: try runtime.spawn(Accumulator.self, state: 0))
    var events: RemoteMachine<Accumulator>.EventStream? = .init(bufferingNewest: 4)
    side.handle(.subscribe(events!.subscription))
    #expect(side.checkAlive())
    #expect(side.subscribers.count == 1)
    // The last reference to the stream goes: its iteration can never start, so it ended.
    events = nil
    #expect(side.checkAlive())
    #expect(side.subscribers.isEmpty)
  }

  @Test("a closed remote fails its later sends instead of leaving them waiting")
  func closed() throws {
    let errors = Collected<RemoteMachineError>()
    try run { remote in
      _ = try? await remote.send(1)
      remote.close()
      do throws(RemoteMachineError) {
        _ = try await remote.send(2)
      } catch {
        errors.append(error)
      }
    }
    #expect(errors.all == [.closed] || errors.all == [.inboxFull])
  }

  @Test(
    "sends to a machine removed meanwhile all return: queued ones and later ones with noMachine",
    arguments: 0..<5)
  func removal(_ round: Int) throws {
    let results = Collected<Result<Int, RemoteMachineError>>()
    // The first reply removes the machine: inputs queued behind it are dropped.
    try run(onLoop: { machine, runtime in
      machine.observe { [unowned runtime] _ in runtime.remove(machine) }
    }) { remote in
      await withTaskGroup(of: Void.self) { group in
        for input in 10..<20 {
          group.addTask {
            do throws(RemoteMachineError) {
              results.append(.success(try await remote.send(input).input))
            } catch {
              results.append(.failure(error))
            }
          }
        }
      }
      do throws(RemoteMachineError) {
        _ = try await remote.send(1)
      } catch {
        results.append(.failure(error))
      }
    }
    let all = results.all
    #expect(all.count == 11)
    #expect(all.filter { (try? $0.get()) != nil }.count <= 1)
    #expect(all.filter { $0 == .failure(.noMachine) }.count >= 10)
  }
}
