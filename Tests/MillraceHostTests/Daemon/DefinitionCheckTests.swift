import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// The definition-change check on records, and a reload through the host: refused with the
/// kind, machines and missing names, or mapped through `migrate` and moved.
@Suite("Definition changes")
final class DefinitionCheckTests {
  static let door = """
    { "kind": "door", "initial": "closed", "queues": { "slow": { "policy": "merge" } },
      "transitions": [
        { "on": "open", "from": "closed", "to": "opened",
          "effects": [ { "after": "1h", "send": "autoClose" } ] },
        { "on": "autoClose", "from": "opened", "to": "closed" },
        { "on": "lock", "from": "closed", "to": "locked" },
        { "on": "unlock", "from": "locked", "to": "closed" } ] }
    """
  /// `door` with `closed` renamed `shut` and `autoClose` renamed `timeout`, `locked` gone.
  static let renamed = """
    { "kind": "door", "initial": "shut",
      "transitions": [
        { "on": "open", "from": "shut", "to": "opened",
          "effects": [ { "after": "1h", "send": "timeout" } ] },
        { "on": "timeout", "from": "opened", "to": "shut" } ] }
    """
  static let migrate =
    #""migrate": { "states": { "closed": "shut" }, "inputs": { "autoClose": "timeout" } },"#

  static func kinds(_ json: String) throws -> [String: HostKind] {
    let kind = HostKind.file(try KindDefinition(json: Data(json.utf8), file: "door.json"))
    return ["door": kind, "counter": Counter.kind]
  }

  static func withMigrate(_ json: String) -> String {
    json.replacingOccurrences(of: #""initial""#, with: migrate + #" "initial""#)
  }

  static func timer(_ input: String, queue: UInt8 = 0) -> StoredTimer {
    StoredTimer(
      input: input, repeats: false, spanNanoseconds: 1, deadlineWallNanoseconds: 5, queue: queue,
      effectID: 0)
  }

  @Test(
    "without migrate, missing states, inputs, queues and kinds are each counted with their machines"
  )
  func refusedNamesAreCounted() throws {
    var check = DefinitionCheck(kinds: try Self.kinds(Self.renamed), dropping: false)
    var records = [
      StoredMachine(name: "d1", kind: "door", state: "closed"),
      StoredMachine(name: "d2", kind: "door", state: "closed"),
      StoredMachine(name: "d3", kind: "door", state: "opened", timers: [Self.timer("autoClose")]),
      StoredMachine(
        name: "d4", kind: "door", state: "opened", timers: [Self.timer("open", queue: 1)]),
      StoredMachine(name: "g1", kind: "gate", state: "up"),
      StoredMachine(name: "d5", kind: "door", state: "opened", timers: [Self.timer("timeout")]),
      StoredMachine(name: "d6", kind: "door", state: "closed", timers: [Self.timer("autoClose")]),
    ]
    let outcomes = records.indices.map { check.map(&records[$0]) }
    #expect(outcomes == [.refused, .refused, .refused, .refused, .refused, .unchanged, .refused])
    #expect(
      check.problems.map(\.description) == [
        #"kind "door" has no state "closed"; 3 machines: d1, d2, d6 in that state"#,
        #"kind "door" has no input "autoClose"; 2 machines: d3, d6 with a pending timer that sends it"#,
        #"kind "door" has no queue 1 (it has 1); 1 machine: d4 with a pending timer on it"#,
        #"kind "gate" is gone; 1 machine: g1 of that kind"#,
      ])
  }

  @Test("a record alike the last unchanged one is unchanged; one that differs is checked whole")
  func runsOfAlikeRecords() throws {
    var check = DefinitionCheck(kinds: try Self.kinds(Self.renamed), dropping: false)
    var records = [
      StoredMachine(name: "d1", kind: "door", state: "opened", timers: [Self.timer("timeout")]),
      StoredMachine(name: "d2", kind: "door", state: "opened", timers: [Self.timer("timeout")]),
      StoredMachine(
        name: "d3", kind: "door", state: "opened",
        timers: [Self.timer("timeout"), Self.timer("autoClose")]),
      StoredMachine(
        name: "d4", kind: "door", state: "opened", timers: [Self.timer("timeout", queue: 1)]),
      StoredMachine(name: "d5", kind: "door", state: "opened"),
      StoredMachine(name: "d6", kind: "door", state: "shut"),
      StoredMachine(name: "d7", kind: "door", state: "closed"),
      StoredMachine(name: "g1", kind: "gate", state: "shut"),
    ]
    let outcomes = records.indices.map { check.map(&records[$0]) }
    #expect(
      outcomes == [
        .unchanged, .unchanged, .refused, .refused, .unchanged, .unchanged, .refused, .refused,
      ])
    #expect(check.problems.count == 4)
  }

  /// How many timers `check.fits` finds when `record` is read as the store's row of it.
  static func fits(_ record: StoredMachine, _ check: DefinitionCheck) -> Int? {
    let timers = TimerEncoding.encode(record.timers)
    return record.name.withUTF8Bytes { name in
      record.kind.withUTF8Bytes { kind in
        record.state.withUTF8Bytes { state in
          timers.withUnsafeBytes {
            check.fits(
              StoredRow(slot: 0, name: name, kind: kind, state: state, timers: StoredTimers($0)))
          }
        }
      }
    }
  }

  @Test("a stored row alike the last unchanged record, byte for byte, fits; any other is mapped")
  func rowsAlikeFit() throws {
    var check = DefinitionCheck(kinds: try Self.kinds(Self.renamed), dropping: false)
    let opened = StoredMachine(
      name: "d1", kind: "door", state: "opened", timers: [Self.timer("timeout")])
    #expect(Self.fits(opened, check) == nil)  // nothing unchanged yet
    var first = opened
    #expect(check.map(&first) == .unchanged)
    func row(_ kind: String, _ state: String, _ timers: [StoredTimer]) -> Int? {
      Self.fits(StoredMachine(name: "d2", kind: kind, state: state, timers: timers), check)
    }
    #expect(row("door", "opened", [Self.timer("timeout")]) == 1)
    #expect(row("door", "opened", [Self.timer("timeout"), Self.timer("timeout")]) == 2)
    #expect(row("door", "opened", []) == 0)
    #expect(row("door", "opened", [Self.timer("timeout"), Self.timer("autoClose")]) == nil)
    #expect(row("door", "opened", [Self.timer("timeout", queue: 1)]) == nil)
    #expect(row("door", "opene", [Self.timer("timeout")]) == nil)
    #expect(row("door", "openedX", [Self.timer("timeout")]) == nil)
    #expect(row("door", "shut", []) == nil)
    #expect(row("doors", "opened", []) == nil)
    #expect(row("gate", "opened", []) == nil)
    // A record without timers that fits leaves nothing a row's timer can be alike.
    var shut = StoredMachine(name: "d3", kind: "door", state: "shut")
    #expect(check.map(&shut) == .unchanged)
    #expect(row("door", "shut", []) == 0)
    #expect(row("door", "shut", [Self.timer("timeout")]) == nil)
    // A refused record leaves the last unchanged one as it was.
    var closed = StoredMachine(name: "d4", kind: "door", state: "closed")
    #expect(check.map(&closed) == .refused)
    #expect(row("door", "shut", []) == 0)
  }

  @Test("migrate renames states and timer inputs in place")
  func migrateMaps() throws {
    var check = DefinitionCheck(
      kinds: try Self.kinds(Self.withMigrate(Self.renamed)), dropping: false)
    var closed = StoredMachine(name: "d1", kind: "door", state: "closed")
    var opened = StoredMachine(
      name: "d2", kind: "door", state: "opened", timers: [Self.timer("autoClose")])
    var counter = StoredMachine(name: "c", kind: "counter", state: "3")
    #expect(check.map(&closed) == .changed)
    #expect(check.map(&opened) == .changed)
    #expect(check.map(&counter) == .unchanged)
    #expect(closed.state == "shut")
    #expect(opened.timers.map(\.input) == ["timeout"])
    #expect(check.problems.isEmpty)
  }

  @Test("dropping drops machines whose kind or state is gone and timers whose input is")
  func droppingDrops() throws {
    var check = DefinitionCheck(kinds: try Self.kinds(Self.renamed), dropping: true)
    var locked = StoredMachine(name: "d1", kind: "door", state: "locked")
    var gate = StoredMachine(name: "g1", kind: "gate", state: "up")
    var opened = StoredMachine(
      name: "d2", kind: "door", state: "opened",
      timers: [Self.timer("autoClose"), Self.timer("timeout"), Self.timer("autoClose")])
    #expect(check.map(&locked) == .dropped)
    #expect(check.map(&gate) == .dropped)
    #expect(check.map(&opened) == .changed)
    #expect(opened.timers.map(\.input) == ["timeout"])
    #expect(check.droppedMachines.count == 2)
    #expect(check.droppedMachines.first == ["d1", "g1"])
    #expect(check.droppedTimers.count == 2)
    #expect(check.droppedTimers.first == ["d2"])
    #expect(check.problems.isEmpty)
  }

  // MARK: Through the host

  let runtime = Runtime()
  let host: MachineHost

  init() throws {
    host = MachineHost(runtime: runtime, store: nil, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 1_000_000_000_000)
    }
    host.register(Array(try Self.kinds(Self.door).values))
  }

  private func fileKinds(_ json: String) throws -> [HostKind] {
    [try Self.kinds(json)["door"]!]
  }

  private func post(_ input: String, to name: String) {
    #expect(host.machine(name)?.post(input, tag: .none) == .accepted)
  }

  @Test("a reload that lacks a state in use is refused and changes nothing")
  func reloadRefused() throws {
    _ = try host.spawn(kind: "door", name: "d1", state: "locked").get()
    let old = host.machine("d1")
    let kinds = try fileKinds(Self.withMigrate(Self.renamed))
    do throws(DefinitionChangeError) {
      try host.replaceFileKinds(with: kinds)
      Issue.record("the reload was accepted")
    } catch {
      #expect(error.problems.map(\.missing) == [.state("locked")])
      #expect(error.problems.first?.machines.first == ["d1"])
    }
    #expect(host.machine("d1") == old)
    #expect(host.machine("d1")?.stateText == "locked")
    #expect(host.kind("door")?.schema?.hasState("closed") == true)
  }

  @Test("an accepted reload dispatches queued inputs, then moves machines with their timers")
  func reloadMoves() throws {
    _ = try host.spawn(kind: "door", name: "d1", state: nil).get()
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    post("open", to: "d1")
    let counter = host.machine("c")
    let notes = try host.replaceFileKinds(with: fileKinds(Self.withMigrate(Self.renamed)))
    #expect(notes == ["moved 1 machines to their kinds' new definitions"])
    let moved = try #require(host.machine("d1"))
    #expect(moved.stateText == "opened")
    #expect(moved.queuedInputs == 0)
    let timers = moved.stored(clock: HostClock(monotonic: .zero, wallNanoseconds: 0))?.timers
    #expect(timers?.map(\.input) == ["timeout"])
    #expect(timers?.first?.deadlineWallNanoseconds == 3_600_000_000_000)
    #expect(host.machine("c") == counter)
    #expect(moved.post("timeout", tag: .none) == .accepted)
    runtime.dispatch()
    #expect(moved.stateText == "shut")
  }
}
