import Testing

@testable import Millrace

/// A machine's input queue (DESIGN §2.4): an input alone in its queue may wait in the
/// machine's block (when the input fits in the block's padding), every other one in a cell of
/// the runtime's input pool; inputs a machine gets while it is being dispatched do not go
/// through the ready list.
@Suite("Input queue")
struct InputQueueTests {
  /// Logs its inputs; `send` feeds `n - 1` back and emits it while `n` is above 100.
  /// A byte of state and of input before an 8-byte extra: the input fits in the block's
  /// padding, so the block holds a slot for it.
  enum Tiny: Machine {
    typealias Extra = (name: String, log: Logger.Log)
    typealias Output = UInt8
    static func resolve(
      _ input: UInt8, state: inout UInt8, extra: Extra, effects: inout Effects<Self>
    ) -> Resolution {
      extra.log.entries.append("\(extra.name)\(input)")
      state = input
      if input > 100 {
        effects.send(input - 1)
        effects.emit(input - 1)
      }
      return .handled
    }
  }

  /// An `Int` input and state: the input does not fit in the padding of the block.
  typealias Wide = FootprintTests.Echo

  /// `arm` starts `after(1 s, done)` with id `t`, `disarm` cancels it, `done` emits 1.
  enum Timed: PlainMachine {
    enum Input: UInt8 { case arm, disarm, done }
    typealias Output = Int
    static func resolve(
      _ input: Input, state: inout UInt8, effects: inout Effects<Self>
    ) -> Resolution {
      switch input {
      case .arm: effects.after(.seconds(1), send: .done, id: "t")
      case .disarm: effects.cancel("t")
      case .done: effects.emit(1)
      }
      return .handled
    }
  }

  /// `Wide`'s shape, with a slot the type reserves: the block grows by the input.
  enum Reserved: PlainMachine {
    static var reservesInputSlot: Bool { true }
    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      state = input
      return .handled
    }
  }

  func cellsInUse(_ runtime: Runtime) -> Int {
    runtime._pools.first { $0.inputs }?.pool.pointee.live ?? 0
  }

  @Test("a block holds an input slot only where the input fits in its padding")
  func slotOnlyInPadding() throws {
    #expect(_TypedMachine<Tiny>.hasInlineSlot)
    #expect(_TypedMachine<Timed>.hasInlineSlot)
    #expect(!_TypedMachine<Wide>.hasInlineSlot)
    let runtime = Runtime()
    _ = try runtime.spawn(Tiny.self, state: 0, extra: ("a", Logger.Log()))
    _ = try runtime.spawn(Wide.self, state: 0)
    #expect(runtime._variants.map(\.blocks.stride) == [32, 8])
  }

  @Test("a type that reserves an input slot gets one, its block bigger by the input")
  func reservedSlot() throws {
    #expect(_TypedMachine<Reserved>.hasInlineSlot)
    let runtime = Runtime()
    let machine = try runtime.spawn(Reserved.self, state: 0)
    _ = try runtime.spawn(Wide.self, state: 0)
    #expect(runtime._variants.map(\.blocks.stride) == [16, 8])
    var states: [Int] = []
    machine.observe { if case .replied(.handled(_, _, let to), _) = $0 { states.append(to) } }
    #expect(machine.post(1) == .accepted)
    #expect(cellsInUse(runtime) == 0)
    #expect(machine.post(2) == .accepted)
    #expect(cellsInUse(runtime) == 2)
    runtime.dispatch()
    #expect(states == [1, 2])
    #expect(cellsInUse(runtime) == 0)
  }

  @Test("an input alone waits in the block; when others join, all take cells, in order")
  func aloneInBlockOthersInCells() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let machine = try runtime.spawn(Tiny.self, state: 0, extra: ("a", log))
    var tags: [UInt64] = []
    machine.observe { if case .replied(_, let tag) = $0 { tags.append(tag.rawValue) } }
    #expect(machine.post(1) == .accepted)
    #expect(cellsInUse(runtime) == 0)
    // The second input moves the first into a cell ahead of it.
    #expect(machine.post(2, tag: PostTag(7)) == .accepted)
    #expect(cellsInUse(runtime) == 2)
    for input: UInt8 in 3...5 { #expect(machine.post(input) == .accepted) }
    #expect(cellsInUse(runtime) == 5)
    #expect(machine.queuedInputs == 5)
    runtime.dispatch(limit: 2)
    #expect(log.entries == ["a1", "a2"])
    #expect(machine.post(6) == .accepted)
    runtime.dispatch()
    #expect(log.entries == ["a1", "a2", "a3", "a4", "a5", "a6"])
    #expect(tags == [0, 7, 0, 0, 0, 0])
    #expect(cellsInUse(runtime) == 0)
    #expect(machine.statistics.queueHighWater == 5)
    #expect(machine.statistics.posted == 6)
    // Empty again: the next input waits in the block.
    #expect(machine.post(8) == .accepted)
    #expect(cellsInUse(runtime) == 0)
  }

  @Test("a tagged input takes a cell even into an empty queue, and its reply keeps the tag")
  func taggedInputTakesACell() throws {
    let runtime = Runtime()
    let machine = try runtime.spawn(Tiny.self, state: 0, extra: ("a", Logger.Log()))
    var tags: [UInt64] = []
    machine.observe { if case .replied(_, let tag) = $0 { tags.append(tag.rawValue) } }
    #expect(machine.post(1, tag: PostTag(9)) == .accepted)
    #expect(cellsInUse(runtime) == 1)
    #expect(machine.post(2) == .accepted)
    #expect(cellsInUse(runtime) == 2)
    runtime.dispatch()
    #expect(tags == [9, 0])
  }

  @Test("the input in the block counts toward the machine's queue limit")
  func blockInputCountsTowardTheLimit() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let machine = try runtime.spawn(Tiny.self, state: 0, extra: ("a", log), inputCapacity: 2)
    #expect((1...3).map { machine.post($0) } == [.accepted, .accepted, .queueFull])
    #expect(machine.statistics.dropped == 1)
    #expect(machine.statistics.queueHighWater == 2)
    runtime.dispatch()
    #expect(log.entries == ["a1", "a2"])
  }

  @Test("the pool limit counts every input of a queue of two or more, the one it moves too")
  func poolLimitForQueuesOfTwo() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 2, inputs: 2))
    let log = Logger.Log()
    let a = try runtime.spawn(Tiny.self, state: 0, extra: ("a", log))
    let b = try runtime.spawn(Tiny.self, state: 0, extra: ("b", log))
    #expect((1...3).map { a.post($0) } == [.accepted, .accepted, .queueFull])
    // b's input alone needs no cell; a second would need two, and none is free.
    #expect((1...2).map { b.post($0) } == [.accepted, .queueFull])
    #expect(cellsInUse(runtime) == 2)
    runtime.dispatch(limit: 1)
    // One cell free: not enough to move b's input and queue another, which is refused and
    // leaves b's input where it was.
    #expect(b.post(2) == .queueFull)
    #expect(b.queuedInputs == 1)
    #expect(a.statistics.dropped == 1)
    #expect(b.statistics.dropped == 2)
    runtime.dispatch()
    #expect(log.entries == ["a1", "b1", "a2"])
    #expect((2...3).map { b.post($0) } == [.accepted, .accepted])
    runtime.dispatch()
    #expect(log.entries == ["a1", "b1", "a2", "b2", "b3"])
  }

  @Test("an input that does not fit in the block takes a cell from the first")
  func wideInputTakesACell() throws {
    let runtime = Runtime()
    let machine = try runtime.spawn(Wide.self, state: 0)
    #expect(machine.post(5) == .accepted)
    #expect(cellsInUse(runtime) == 1)
    runtime.dispatch()
    #expect(machine.state == 5)
  }

  @Test("a timer's delivery moves the input in the block to a cell, and a cancel still wins")
  func cancelledDeliveryBehindBlockInput() throws {
    let runtime = Runtime()
    let machine = try runtime.spawn(Timed.self, state: 0)
    var outputs: [Int] = []
    machine.observe { if case .emitted(let value) = $0 { outputs.append(value) } }
    _ = machine.post(.arm)
    runtime.dispatch()
    #expect(machine.post(.disarm) == .accepted)
    #expect(cellsInUse(runtime) == 0)
    runtime.advance(to: runtime.now.advanced(by: .seconds(1)))
    #expect(machine.queuedInputs == 2)
    #expect(cellsInUse(runtime) == 2)
    // Two turns, one input resolved: the second turn finds only the cancelled delivery.
    #expect(runtime.dispatch() == 2)
    #expect(outputs.isEmpty)
    #expect(runtime.statistics.discarded == 1)
    #expect(runtime.statistics.dispatched == 2)
    #expect(machine.statistics.handled == 2)
  }

  @Test("inputs a machine gets during its turn put it behind machines scheduled meanwhile")
  func runningMachineYieldsBehindOthers() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let a = try runtime.spawn(Tiny.self, state: 0, extra: ("a", log))
    let b = try runtime.spawn(Tiny.self, state: 0, extra: ("b", log))
    // Each turn of a above 100 sends a `n - 1` and then emits it, which the route posts to b
    // as `n - 101`: b is scheduled after a got its input.
    runtime.outward(from: a, to: b) { $0 - 100 }
    _ = a.post(103)
    #expect(runtime.dispatch() == 7)
    #expect(log.entries == ["a103", "b2", "a102", "b1", "a101", "b0", "a100"])
    #expect(!runtime.hasPendingInputs)
  }

  @Test("a machine that feeds itself, alone, takes its turns in one dispatch off the ready list")
  func selfFeedingMachineStaysOffTheReadyList() throws {
    let runtime = Runtime()
    let log = Logger.Log()
    let a = try runtime.spawn(Tiny.self, state: 0, extra: ("a", log))
    // Each output is emitted after the input the same turn sent.
    var pendingAtOutput: [Bool] = []
    a.observe { [unowned runtime] event in
      if case .emitted = event { pendingAtOutput.append(runtime.hasPendingInputs) }
    }
    _ = a.post(103)
    #expect(runtime.dispatch() == 4)
    #expect(log.entries == ["a103", "a102", "a101", "a100"])
    #expect(pendingAtOutput == [false, false, false])
    #expect(a.statistics.posted == 4)
    #expect(a.statistics.handled == 4)
  }

  @Test("a machine removed during its own turn keeps its slot until the turn is over")
  func removalDuringTheTurnWaitsForItsEnd() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 2))
    let log = Logger.Log()
    let a = try runtime.spawn(Tiny.self, state: 0, extra: ("a", log))
    _ = try runtime.spawn(Tiny.self, state: 0, extra: ("b", log))
    var refusedDuringTurn: SpawnError?
    a.observe { [unowned runtime] _ in
      runtime.remove(a)
      do throws(SpawnError) {
        _ = try runtime.spawn(Tiny.self, state: 0, extra: ("c", log))
      } catch {
        refusedDuringTurn = error
      }
    }
    _ = a.post(103)
    #expect(a.post(7) == .accepted)
    #expect(runtime.dispatch() == 1)
    #expect(refusedDuringTurn == .machineSlotsFull)
    #expect(log.entries == ["a103"])
    let d = try runtime.spawn(Tiny.self, state: 0, extra: ("d", log))
    #expect(d.id.index == a.id.index)
    #expect(!a.isAlive)
  }
}
