import Millrace
import MillraceUV
import Synchronization
import Testing

/// Adds each input to its total; rejects negative inputs; `-100` removes nothing but takes
/// no reply path other than rejection.
enum Accumulator: Machine {
  static func resolve(
    _ input: Int, state: inout Int, extra: Void, effects: inout Effects<Self>
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

@Suite("RemoteMachine", .serialized)
struct RemoteMachineTests {
  /// A loop with an accumulator behind a `RemoteMachine`, and an inbox that stops the loop;
  /// `body` runs in a detached task, then the loop stops. Returns the machine's handle.
  @discardableResult
  func run(
    inputCapacity: Int? = nil, commands: Int = 1_024,
    _ body: @escaping @Sendable (RemoteMachine<Accumulator>) async -> Void,
    onLoop: (MachineHandle<Accumulator>, Runtime) -> Void = { _, _ in }
  ) throws -> MachineHandle<Accumulator> {
    let loop = try EventLoop()
    let runtime = Runtime()
    let driver = RuntimeLoop(loop: loop, runtime: runtime)
    let machine = try runtime.spawn(Accumulator.self, state: 0, inputCapacity: inputCapacity)
    let remote = try RemoteMachine(machine, driver: driver, capacity: commands)
    let stop = try Inbox<Bool>(loop: loop, capacity: 1) { _ in loop.stop() }
    let stopper = stop.sender
    onLoop(machine, runtime)
    Task.detached {
      await body(remote)
      stopper.post(true)
    }
    runLoop(loop, timeout: 30)
    try closeWithin(loop)
    return machine
  }

  @Test("sends from many tasks each get their own reply, in each task's order")
  func sendsFromTasks() throws {
    let replies = Collected<(task: Int, input: Int, to: Int)>()
    let machine = try run { remote in
      await withTaskGroup(of: Void.self) { group in
        for task in 0..<4 {
          group.addTask {
            for index in 0..<200 {
              guard
                case .success(let input, _, let to) = try? await remote.send(task * 1_000 + index)
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
      #expect(inputs == (0..<200).map { task * 1_000 + $0 })
    }
    // Each reply's total is a distinct prefix sum: no reply was given twice or to another.
    #expect(Set(all.map(\.to)).count == 800)
    #expect(machine.state == nil)  // the loop and its runtime are gone
  }

  @Test("a rejected input is a failure reply, not an error")
  func rejection() throws {
    let result = Collected<Bool>()
    try run { remote in
      if case .failure(let input, let state) = try? await remote.send(-1) {
        result.append(input == -1 && state == 0)
      }
    }
    #expect(result.all == [true])
  }

  @Test("the event stream sees every reply from the moment it subscribed, then finishes")
  func events() throws {
    let seen = Collected<Int>()
    try run { remote in
      let events = remote.events()
      // The subscription reaches the loop before the sends behind it in the inbox.
      for value in 1...5 { _ = try? await remote.send(value) }
      remote.close()
      for await event in events {
        if case .replied(.success(let input, _, _), _) = event { seen.append(input) }
      }
    }
    #expect(seen.all == [1, 2, 3, 4, 5])
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
    try run { remote in
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
    } onLoop: { machine, runtime in
      // The first reply removes the machine: inputs queued behind it are dropped.
      machine.observe { [unowned runtime] _ in runtime.remove(machine) }
    }
    let all = results.all
    #expect(all.count == 11)
    #expect(all.filter { (try? $0.get()) != nil }.count <= 1)
    #expect(all.filter { $0 == .failure(.noMachine) }.count >= 10)
  }
}
