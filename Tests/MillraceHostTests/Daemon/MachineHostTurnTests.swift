import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// What a turn's commit writes: each changed machine once, nothing for a machine killed in the
/// turn but its delete, and the clock read only for timer deadlines.
@Suite("Host turns")
final class MachineHostTurnTests {
  let directory = NSTemporaryDirectory() + "millrace-host-\(UUID().uuidString)"
  let runtime = Runtime()
  let host: MachineHost

  init() throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let store = try MachineStore(directory: directory, durability: .batched)
    var reads = 0
    host = MachineHost(runtime: runtime, store: store, logger: Logger(label: "test")) {
      reads += 1
      return HostClock(monotonic: .zero, wallNanoseconds: 1_000_000_000_000)
    }
    clockRead = { reads }
    host.register([Counter.kind, Self.alarm])
  }

  private var clockRead: () -> Int = { 0 }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  /// A kind whose `arm` starts a timer.
  static var alarm: HostKind {
    enum Alarm: PlainMachine {
      static func resolve(
        _ input: String, state: inout String, effects: inout Effects<Self>
      ) -> Resolution {
        if input == "arm" { effects.after(.seconds(60), send: "ring") }
        state = input
        return .handled
      }
    }
    return .code(
      "alarm", Alarm.self, initial: "idle", extra: (),
      codec: TextCodec(
        parseInput: { $0 == "arm" || $0 == "ring" ? $0 : nil }, formatInput: { $0 },
        parseState: { $0 }, formatState: { $0 }, formatOutput: { never in switch never {} }))
  }

  /// The journal's current records.
  private func journal() throws -> [JournalChange] {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/machines.journal"))
    return bytes.withUnsafeBytes { bytes in
      JournalFormat.decode(bytes, epoch: JournalFormat.epoch(ofHeader: bytes) ?? 0).changes
    }
  }

  /// The journal's current records, as text: `save NAME STATE [timers]`, `state STATE` (a
  /// state record) or `delete NAME`.
  private func records() throws -> [String] {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/machines.journal"))
    var records: [String] = []
    bytes.withUnsafeBytes { bytes in
      JournalFormat.forEachRecord(bytes, epoch: JournalFormat.epoch(ofHeader: bytes) ?? 0) {
        let text = { (bytes: UnsafeRawBufferPointer) in String(decoding: bytes, as: UTF8.self) }
        records.append(
          $0.isStateChange
            ? "state \(text($0.state))"
            : $0.isDelete
              ? "delete \(text($0.name))"
              : "save \(text($0.name)) \(text($0.state))" + ($0.timers.isEmpty ? "" : " timers"))
      }
    }
    return records
  }

  private func post(_ input: String, to name: String) {
    #expect(host.machine(name)?.post(input, tag: .none) == .accepted)
  }

  @Test("a machine changed three times in a turn is saved once; without timers no clock read")
  func oncePerTurn() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    _ = host.finishTurn()
    for _ in 0..<3 { post("inc", to: "c") }
    runtime.dispatch()
    _ = host.finishTurn()
    post("inc", to: "c")
    runtime.dispatch()
    _ = host.finishTurn()
    // Saved whole once, then its state alone: its name, kind and timers are the save's.
    #expect(try records() == ["save c 0", "state 3", "state 4"])
    #expect(clockRead() == 0)
  }

  @Test("a state alone only after a save without timers, and while the machine has none")
  func stateRecords() throws {
    let driver = ManualDriver(runtime: runtime)
    _ = try host.spawn(kind: "alarm", name: "a", state: nil).get()
    _ = host.finishTurn()
    for step in ["arm", "ring", nil, "ring"] {
      // arm: a timer, saved whole with it; ring by hand: the timer still pending, whole again;
      // the timer fires: whole, without it; ring again: now its state alone.
      if let step { post(step, to: "a") } else { driver.advance(by: .seconds(61)) }
      runtime.dispatch()
      _ = host.finishTurn()
    }
    #expect(
      try records() == [
        "save a idle", "save a arm timers", "save a ring timers", "save a ring", "state ring",
      ])
  }

  @Test("a failed commit makes the next record of each machine it held a whole save")
  func stateAfterAFailedCommit() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    _ = try host.spawn(kind: "counter", name: "d", state: nil).get()
    _ = host.finishTurn()
    let c = try #require(host.directory.slot(of: "c"))
    #expect(host.directory.entry(c).pointee.isStoredPlain)
    // The commit fails: the store may hold none of the turn's saves.
    post("inc", to: "c")
    runtime.dispatch()
    try host.store?.close()  // commits are refused from now on
    #expect(host.finishTurn().refusal != nil)
    #expect(!host.directory.entry(c).pointee.isStoredPlain)
    #expect(host.directory.entry(c).pointee.isChanged)
  }

  @Test("a machine killed in its turn leaves its delete only; timers read the clock once a turn")
  func killAndClock() throws {
    _ = try host.spawn(kind: "alarm", name: "a", state: nil).get()
    _ = try host.spawn(kind: "alarm", name: "b", state: nil).get()
    _ = try host.spawn(kind: "counter", name: "gone", state: nil).get()
    post("arm", to: "a")
    post("arm", to: "b")
    post("inc", to: "gone")
    runtime.dispatch()
    #expect(host.kill("gone"))
    _ = host.finishTurn()
    #expect(
      try journal().map(\.name) == ["gone", "a", "b"]
        && journal().first == .delete(name: "gone"))
    #expect(clockRead() == 1)
    if case .save(let a)? = try journal().dropFirst().first {
      #expect(a.timers.map(\.input) == ["ring"])
    } else {
      Issue.record("a was not saved")
    }
  }

  @Test("a machine taking a slot freed in an earlier turn is saved whole before its state alone")
  func slotTakenAgain() throws {
    let first = try host.spawn(kind: "counter", name: "c", state: nil).get()
    _ = host.finishTurn()
    #expect(host.kill("c"))
    _ = host.finishTurn()
    let again = try host.spawn(kind: "counter", name: "d", state: "5").get()
    // The new machine is in the old one's slot: a state record there would name `c`.
    try #require(again.id.index == first.id.index)
    _ = host.finishTurn()
    post("inc", to: "d")
    runtime.dispatch()
    _ = host.finishTurn()
    #expect(try records() == ["save c 0", "delete c", "save d 5", "state 6"])
  }

  @Test("a machine changed, killed and spawned again in a turn: its delete, then its one save")
  func killedAndSpawnedAgainInATurn() throws {
    let first = try host.spawn(kind: "counter", name: "c", state: nil).get()
    _ = host.finishTurn()
    post("inc", to: "c")
    runtime.dispatch()
    #expect(host.kill("c"))
    let again = try host.spawn(kind: "counter", name: "c", state: "7").get()
    post("inc", to: "c")
    runtime.dispatch()
    #expect(host.dirty.count == 2)  // the slot, listed twice
    _ = host.finishTurn()
    let changes = try journal().map { change -> String in
      guard case .save(let machine) = change else { return "delete \(change.name)" }
      return "save \(machine.name) \(machine.state)"
    }
    #expect(changes == ["save c 0", "delete c", "save c 8"])
    // Each record carries the machine's runtime index as its slot.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/machines.journal"))
    var slots: [UInt32] = []
    bytes.withUnsafeBytes { bytes in
      JournalFormat.forEachRecord(bytes, epoch: JournalFormat.epoch(ofHeader: bytes) ?? 0) {
        slots.append($0.slot)
      }
    }
    #expect(slots == [first.id.index, first.id.index, again.id.index])
    #expect(host.dirty.isEmpty)
    #expect(!host.directory.entry(again.id.index).pointee.isChanged)
  }

  /// Records what the host answers.
  final class Requester: SendRequester {
    var answers: [(UInt64, SendOutcome)] = []
    func sendFinished(ticket: UInt64, _ outcome: SendOutcome) { answers.append((ticket, outcome)) }
  }

  /// Queues an input, posted past the host, to a counter of its own named `name`: the runtime
  /// is then not at rest, so the host's sends queue their inputs instead of resolving them in
  /// place.
  static func queueInput(in host: MachineHost, name: String = "busy") throws {
    let machine = try host.spawn(kind: "counter", name: name, state: nil).get()
    #expect(host.runtime.lookup(Counter.self).post(.increment, to: machine.id) == .accepted)
    #expect(!host.runtime.isAtRest)
  }

  @Test("a send finds the runtime at rest: resolved and answered before send returns, once")
  func sendsResolvedInPlace() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    #expect(host.finishTurn().refusal == nil)
    let requester = Requester()
    #expect(runtime.isAtRest)
    for (ticket, input) in [(1, "inc"), (2, "dec"), (3, "dec"), (4, "inc")] {
      #expect(throws: Never.self) {
        try host.send(input, to: "c", requester: requester, ticket: UInt64(ticket)).get()
      }
      #expect(requester.answers.count == ticket)
      #expect(runtime.isAtRest)
    }
    #expect(host.awaiting.isEmpty && host.inPlace == nil)
    #expect(requester.answers.map(\.0) == [1, 2, 3, 4])
    #expect(
      requester.answers.map(\.1) == [
        .moved(from: "0", to: "1"), .moved(from: "1", to: "0"), .rejected(input: "dec", state: "0"),
        .moved(from: "0", to: "1"),
      ])
    // Resolved in place or not, a handled input marks its machine for the turn's commit.
    #expect(host.directory.entry(try #require(host.directory.slot(of: "c"))).pointee.isChanged)
    runtime.dispatch()
    #expect(requester.answers.count == 4)
    #expect(host.finishTurn().refusal == nil)
    #expect(try records() == ["save c 0", "state 1"])
  }

  @Test("a send rejected in place changes nothing: the turn commits no record")
  func rejectedInPlaceMarksNothing() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    #expect(host.finishTurn().refusal == nil)
    let requester = Requester()
    #expect(throws: Never.self) {
      try host.send("dec", to: "c", requester: requester, ticket: 1).get()
    }
    #expect(requester.answers.map(\.1) == [.rejected(input: "dec", state: "0")])
    #expect(host.dirty.isEmpty)
    #expect(host.finishTurn().refusal == nil)
    #expect(try records() == ["save c 0"])
  }

  @Test("a send resolved in place with onEvent set: answered once, then the event passed on")
  func inPlaceWithOnEvent() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: "1").get()
    let requester = Requester()
    var seen: [(answers: Int, message: String)] = []
    host.onEvent = { event, _ in seen.append((requester.answers.count, event.message)) }
    #expect(throws: Never.self) {
      try host.send("dec", to: "c", requester: requester, ticket: 7).get()
    }
    #expect(requester.answers.map(\.0) == [7])
    #expect(requester.answers.map(\.1) == [.moved(from: "1", to: "0")])
    // The reply first, then the event and the output it emitted.
    #expect(seen.map(\.answers) == [1, 1])
    #expect(seen.map(\.message) == ["dec 1 0", "emit zero"])
    #expect(host.inPlace == nil)
  }

  @Test("a send behind a queued input waits for the dispatch, in order")
  func sendsBehindQueuedInputs() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    try Self.queueInput(in: host)
    let requester = Requester()
    for ticket in 1...2 {
      #expect(throws: Never.self) {
        try host.send("inc", to: "c", requester: requester, ticket: UInt64(ticket)).get()
      }
    }
    #expect(requester.answers.isEmpty)
    runtime.dispatch()
    #expect(requester.answers.map(\.0) == [1, 2])
    #expect(requester.answers.map(\.1) == [.moved(from: "0", to: "1"), .moved(from: "1", to: "2")])
    #expect(runtime.isAtRest)
  }

  @Test("a full queue and a full input pool are told apart")
  func busyTexts() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(inputsPerMachine: 2, inputs: 4))
    let host = MachineHost(runtime: runtime, store: nil, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 0)
    }
    host.register([Counter.kind])
    for name in ["a", "b"] { _ = try host.spawn(kind: "counter", name: name, state: nil).get() }
    try Self.queueInput(in: host)
    let requester = Requester()
    func send(to name: String) -> HostFailure? {
      guard case .failure(let failure) = host.send("inc", to: name, requester: requester, ticket: 0)
      else { return nil }
      return failure
    }
    #expect(send(to: "a") == nil)
    #expect(send(to: "a") == nil)
    #expect(send(to: "a") == HostFailure(.busy, "queue of a is full (2 inputs)"))
    #expect(send(to: "b") == nil)
    #expect(
      send(to: "b")
        == HostFailure(
          .busy,
          "the input pool is full: all 4 queued-input cells are taken (--max-inputs), 1 of them by b"
        ))
  }

  @Test("every accepted send is answered once: processed, rejected, or its machine killed")
  func sendsAreAnswered() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    _ = try host.spawn(kind: "counter", name: "gone", state: nil).get()
    let requester = Requester()
    try Self.queueInput(in: host)
    for (ticket, name, input) in [
      (1, "c", "inc"), (2, "c", "dec"), (3, "c", "dec"), (4, "gone", "inc"),
    ] {
      #expect(throws: Never.self) {
        try host.send(input, to: name, requester: requester, ticket: UInt64(ticket)).get()
      }
    }
    #expect(host.kill("gone"))
    runtime.dispatch()
    let answers = requester.answers.sorted { $0.0 < $1.0 }
    #expect(answers.map(\.0) == [1, 2, 3, 4])
    #expect(
      answers.map(\.1) == [
        .moved(from: "0", to: "1"), .moved(from: "1", to: "0"), .rejected(input: "dec", state: "0"),
        .machineRemoved("gone"),
      ])
    #expect(host.finishTurn().refusal == nil)
  }
}
