import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// A clean stop saves nothing again (`MachineHost.closeStore()`), so a machine whose timers
/// change without a transition must be saved in that turn: a restart must not re-arm an `after`
/// that fired, whether its input was handled or refused.
@Suite("Timer changes are saved in their turn")
struct TimerChangeSaveTests {
  let directory = StoreFixtures.directory("millrace-timer-save")

  /// Arms `ring` in 2 s on `arm`, and a 1 s `every` sending `tick` on `tick-on`; refuses
  /// `ring` and `tick` (they change nothing but the timers).
  enum Alarm: PlainMachine {
    static func resolve(
      _ input: String, state: inout String, effects: inout Effects<Self>
    ) -> Resolution {
      switch input {
      case "arm": effects.after(.seconds(2), send: "ring", id: "alarm")
      case "tick-on": effects.every(.seconds(1), send: "tick", id: "ticker")
      default: return .rejected
      }
      state = input
      return .handled
    }
  }

  static var kind: HostKind { kind("alarm") }

  /// `Alarm` as the kind named `name`.
  static func kind(_ name: String) -> HostKind {
    HostKind.code(
      name, Alarm.self, initial: "idle", extra: (),
      codec: TextCodec<Alarm>(
        parseInput: { ["arm", "ring", "tick-on", "tick"].contains($0) ? $0 : nil },
        formatInput: { $0 }, parseState: { $0 }, formatState: { $0 },
        formatOutput: { never in switch never {} }))
  }

  /// A host of `Alarm` over a new runtime and `store`, on a manual clock (the wall clock moves
  /// with it).
  func host(_ store: MachineStore) -> (MachineHost, ManualDriver) {
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let host = MachineHost(runtime: runtime, store: store, logger: Logger(label: "test")) {
      HostClock(
        monotonic: runtime.now,
        wallNanoseconds: 1_000_000_000_000 + Int64(truncatingIfNeeded: runtime.now.nanoseconds))
    }
    host.register([Self.kind, Self.kind("bell")])
    return (host, driver)
  }

  func storedTimers(_ store: MachineStore) throws -> [String: [String]] {
    var timers: [String: [String]] = [:]
    for machine in try store.loadAll() { timers[machine.name] = machine.timers.map(\.input) }
    return timers
  }

  @Test("an after whose input is refused is gone from the record after its turn")
  func refusedAfterIsSaved() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, driver) = host(store)
    let alarm = try host.spawn(kind: "alarm", name: "a", state: nil).get()
    _ = alarm.post("arm", tag: .none)
    host.runtime.dispatch()
    host.finishTurn()
    #expect(try storedTimers(store) == ["a": ["ring"]])
    let commits = host.commits
    driver.advance(by: .seconds(2))
    host.finishTurn()
    #expect(host.commits == commits + 1)
    #expect(try storedTimers(store) == ["a": []])
    #expect(alarm.stateText == "arm")
  }

  @Test("an every that ticks into a refusal is saved with its next deadline")
  func refusedTickIsSaved() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, driver) = host(store)
    let ticker = try host.spawn(kind: "alarm", name: "t", state: nil).get()
    _ = ticker.post("tick-on", tag: .none)
    host.runtime.dispatch()
    host.finishTurn()
    let first = try #require(store.loadAll().first?.timers.first?.deadlineWallNanoseconds)
    let commits = host.commits
    driver.advance(by: .seconds(1))
    host.finishTurn()
    #expect(host.commits == commits + 1)
    let second = try #require(store.loadAll().first?.timers.first?.deadlineWallNanoseconds)
    #expect(second - first == 1_000_000_000)
  }

  @Test("a refused SEND saves nothing")
  func refusedSendCommitsNothing() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, _) = host(store)
    let alarm = try host.spawn(kind: "alarm", name: "a", state: nil).get()
    host.finishTurn()
    let commits = host.commits
    #expect(alarm.post("ring", tag: PostTag(7)) == .accepted)
    host.runtime.dispatch()
    host.finishTurn()
    #expect(host.commits == commits)
  }

  @Test("closeStore keeps every record as last saved, and a restart restores them")
  func closeThenRestore() throws {
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      let (host, driver) = host(store)
      for name in ["a", "b", "c"] {
        let machine = try host.spawn(kind: "alarm", name: name, state: nil).get()
        _ = machine.post(name == "b" ? "tick-on" : "arm", tag: .none)
      }
      host.runtime.dispatch()
      host.finishTurn()
      driver.advance(by: .milliseconds(500))
      #expect(host.closeStore())
      // Closed: no commit is taken any more.
      try store.save(StoredMachine(name: "late", kind: "alarm", state: "idle"))
      #expect(throws: StoreError.self) { try store.commit() }
    }
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, driver) = host(store)
    #expect(try host.restore() == [])
    #expect(host.machineNames() == ["a", "b", "c"])
    #expect(host.runtime.statistics.timers == 3)
    // Nothing restored is marked changed: the first turn commits nothing.
    host.finishTurn()
    #expect(host.commits == 0)
    driver.advance(by: .seconds(2))
    #expect(host.machine("a")?.stateText == "arm")
  }

  @Test("runs of alike stored machines are restored each with its state, timers and name")
  func restoreRunsOfAlikeMachines() throws {
    // m00-m19 armed (a 2 s `after`), m20-m39 idle, m40-m59 ticking (a 1 s `every`).
    let names = (0..<60).map { "m" + String(100 + $0).dropFirst() }
    let states = names.indices.map { ["arm", "idle", "tick-on"][$0 / 20] }
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      let (host, driver) = host(store)
      for (name, state) in zip(names, states) {
        let machine = try host.spawn(kind: "alarm", name: name, state: nil).get()
        if state != "idle" { _ = machine.post(state, tag: .none) }
      }
      host.runtime.dispatch()
      host.finishTurn()
      driver.advance(by: .milliseconds(500))
      #expect(host.closeStore())
    }
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, driver) = host(store)
    #expect(try host.restore() == [])
    #expect(host.machineCount == 60)
    #expect(zip(names, states).allSatisfy { host.machine($0)?.stateText == $1 })
    #expect(host.machine("m60") == nil)
    #expect(host.runtime.statistics.timers == 40)
    // The `after`s had 2 s left when stored (in the turn that armed them), and keep it.
    driver.advance(by: .milliseconds(1_900))
    #expect(host.runtime.statistics.timers == 40)
    driver.advance(by: .milliseconds(200))
    #expect(host.runtime.statistics.timers == 20)
    #expect(host.kill("m30") && host.machine("m30") == nil)
  }

  @Test("stored machines of kinds that alternate are each restored under their own kind")
  func restoreAlternatingKinds() throws {
    // In name order: runs of two, one and three machines of each kind, alike in state.
    let kinds = ["alarm", "alarm", "bell", "alarm", "bell", "bell", "bell", "alarm", "bell"]
    let names = kinds.indices.map { "k\($0)" }
    do {
      let store = try MachineStore(directory: directory, durability: .batched)
      let (host, _) = host(store)
      for (name, kind) in zip(names, kinds) {
        _ = try host.spawn(kind: kind, name: name, state: nil).get().post("arm", tag: .none)
      }
      host.runtime.dispatch()
      host.finishTurn()
      #expect(host.closeStore())
    }
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, _) = host(store)
    #expect(try host.restore() == [])
    #expect(names.map { host.machine($0)?.kind } == kinds)
    #expect(names.allSatisfy { host.machine($0)?.stateText == "arm" })
    #expect(host.machineCount(kind: "bell") == 5 && host.runtime.statistics.timers == 9)
  }

  /// Writes machines `m0` ... `m<count - 1>` of `alarm`, idle, and closes the store.
  func storeIdleAlarms(_ count: Int, plus extra: [StoredMachine] = []) throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    for index in 0..<count {
      try store.save(StoredMachine(name: "m\(index)", kind: "alarm", state: "idle"))
    }
    for machine in extra { try store.save(machine) }
    try store.commit()
    try store.close()
  }

  @Test("a restore over --max-machines takes back what it spawned and names the full count")
  func restoreOverCapacitySpawnsNothing() throws {
    try storeIdleAlarms(5)
    let store = try MachineStore(directory: directory, durability: .batched)
    let host = MachineHost(
      runtime: Runtime(capacity: RuntimeCapacity(machines: 3)), store: store,
      logger: Logger(label: "test")
    ) { HostClock(monotonic: .zero, wallNanoseconds: 0) }
    host.register([Self.kind])
    #expect(throws: RestoreRefusal.tooManyMachines(stored: 5, limit: 3)) { try host.restore() }
    #expect(host.machineCount == 0)
    #expect(host.runtime.statistics.machines == 0)
  }

  @Test("a restore into a host that has a stored name already restores the others and says so")
  func restoreIntoAHostWithMachines() throws {
    try storeIdleAlarms(2)
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, _) = host(store)
    _ = try host.spawn(kind: "alarm", name: "m0", state: "arm").get()
    #expect(try host.restore() == ["m0: not restored: machine m0 exists"])
    #expect(host.machineNames() == ["m0", "m1"])
    #expect(host.machine("m0")?.stateText == "arm")
  }

  @Test("a refused restore takes back every machine it spawned")
  func refusedRestoreSpawnsNothing() throws {
    try storeIdleAlarms(5, plus: [StoredMachine(name: "z", kind: "gone", state: "idle")])
    let store = try MachineStore(directory: directory, durability: .batched)
    let (host, _) = host(store)
    #expect {
      try host.restore()
    } throws: { error in
      guard case .definitions(let problems) = error as? RestoreRefusal else { return false }
      return problems.description.contains("z")
    }
    #expect(host.machineCount == 0)
    #expect(try store.count() == 6)
  }
}
