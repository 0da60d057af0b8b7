import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// The host without an object per machine: events of kinds sharing a machine type printed
/// with their own kind's names, long names, and the memory of killed machines given back.
@Suite("Host directory")
final class MachineHostDirectoryTests {
  static let door = """
    { "kind": "door", "initial": "closed",
      "transitions": [
        { "on": "open", "from": "closed", "to": "opened", "effects": [ { "emit": "creak" } ] },
        { "on": "close", "from": "opened", "to": "closed" } ] }
    """
  static let lamp = """
    { "kind": "lamp", "initial": "dark",
      "transitions": [
        { "on": "switch", "from": "dark", "to": "lit", "effects": [ { "emit": "glow" } ] },
        { "on": "switch", "from": "lit", "to": "dark" } ] }
    """

  static func fileKind(_ json: String, _ file: String) throws -> HostKind {
    .file(try KindDefinition(json: Data(json.utf8), file: file))
  }

  let runtime = Runtime(capacity: RuntimeCapacity(machines: 1 << 14))
  let host: MachineHost
  var events: [(name: String, message: String)] = []

  init() throws {
    host = MachineHost(runtime: runtime, store: nil, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 0)
    }
    host.register([
      try Self.fileKind(Self.door, "door.json"), try Self.fileKind(Self.lamp, "lamp.json"),
      Counter.kind,
    ])
    host.onEvent = { [unowned self] event, machine in events.append((machine.name, event.message)) }
  }

  private func post(_ input: String, to name: String) {
    #expect(host.machine(name)?.post(input, tag: .none) == .accepted)
  }

  @Test("the events of kinds of one machine type are printed with their own kind's names")
  func kindsOfOneTypeKeepTheirNames() throws {
    for name in ["d1", "d2"] { _ = try host.spawn(kind: "door", name: name, state: nil).get() }
    _ = try host.spawn(kind: "lamp", name: "l1", state: nil).get()
    _ = try host.spawn(kind: "counter", name: "c1", state: nil).get()
    post("switch", to: "l1")
    post("open", to: "d2")
    post("inc", to: "c1")
    post("switch", to: "l1")
    post("close", to: "d2")
    #expect(host.machine("d1")?.post("switch", tag: .none) == .unknownInput)
    #expect(host.machine("l1")?.post("open", tag: .none) == .unknownInput)
    runtime.dispatch()
    let messages = events.map { "\($0.name): \($0.message)" }
    #expect(
      messages.sorted() == [
        "c1: inc 0 1", "d2: close opened closed", "d2: emit creak", "d2: open closed opened",
        "l1: emit glow", "l1: switch dark lit", "l1: switch lit dark",
      ])
    #expect(host.machine("l1")?.stateText == "dark")
    #expect(host.machine("d2")?.stateText == "closed")
    #expect(host.machineCount(kind: "door") == 2)
    #expect(host.machineNames(kind: "lamp") == ["l1"])
  }

  @Test("after a reload, moved and new machines print the new names; unchanged ones stay")
  func aReloadKeepsEachMachinesCodec() throws {
    _ = try host.spawn(kind: "lamp", name: "old", state: nil).get()
    // The same lamp with its states renamed is a different definition: the machine moves.
    let renamed = Self.lamp.replacingOccurrences(of: "\"lit\"", with: "\"on\"")
      .replacingOccurrences(
        of: "\"initial\"", with: #""migrate": { "states": { "lit": "on" } }, "initial""#)
    try host.replaceFileKinds(with: [
      try Self.fileKind(renamed, "lamp.json"), try Self.fileKind(Self.door, "door.json"),
    ])
    _ = try host.spawn(kind: "lamp", name: "new", state: nil).get()
    post("switch", to: "old")
    post("switch", to: "new")
    runtime.dispatch()
    #expect(
      events.map(\.message) == ["switch dark on", "emit glow", "switch dark on", "emit glow"])
    // A reload with the same definitions moves nothing: the machines keep their kind slot.
    let before = host.machine("new")
    try host.replaceFileKinds(with: [
      try Self.fileKind(renamed, "lamp.json"), try Self.fileKind(Self.door, "door.json"),
    ])
    #expect(host.machine("new") == before)
    post("switch", to: "new")
    runtime.dispatch()
    #expect(events.last?.message == "switch on dark")
  }

  @Test("a kind registered twice in one call: the later one serves, the earlier slot is freed")
  func aKindRegisteredTwice() throws {
    let renamed = Self.lamp.replacingOccurrences(of: "\"lit\"", with: "\"on\"")
    host.register([try Self.fileKind(Self.lamp, "a.json"), try Self.fileKind(renamed, "b.json")])
    #expect(host.kind("lamp")?.source.hasSuffix("b.json") == true)
    #expect(host.kindSlots.compactMap { $0?.kind.name }.sorted() == ["counter", "door", "lamp"])
    _ = try host.spawn(kind: "lamp", name: "l", state: nil).get()
    post("switch", to: "l")
    runtime.dispatch()
    #expect(host.machine("l")?.stateText == "on")
  }

  @Test("a SPAWN is refused for a taken name before its kind or state is looked at")
  func refusalsComeInOrder() throws {
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    func refusal(_ kind: String, _ name: String, _ state: String?) -> HostFailure? {
      guard case .failure(let failure) = host.spawn(kind: kind, name: name, state: state) else {
        return nil
      }
      return failure
    }
    #expect(refusal("nosuch", "c", nil) == .nameTaken("c"))
    #expect(refusal("counter", "c", "nosuch") == .nameTaken("c"))
    #expect(refusal("nosuch", "d", nil)?.code == .nokind)
    #expect(refusal("counter", "d", "nosuch")?.code == .nostate)
    #expect(refusal("counter", "d", "7") == nil)
    #expect(host.machine("d")?.stateText == "7" && host.machineCount == 2)
  }

  @Test(arguments: [16, 17, 64, 128])
  func longNamesWorkThroughTheHost(length: Int) throws {
    let name = String(repeating: "n", count: length - 2) + ":1"
    let other = String(repeating: "n", count: length - 2) + ":2"
    _ = try host.spawn(kind: "counter", name: name, state: "4").get()
    _ = try host.spawn(kind: "counter", name: other, state: nil).get()
    #expect(throws: HostFailure.self) {
      try self.host.spawn(kind: "counter", name: name, state: nil).get()
    }
    post("dec", to: name)
    runtime.dispatch()
    #expect(host.machine(name)?.stateText == "3")
    #expect(host.machine(other)?.stateText == "0")
    #expect(events.map(\.name) == [name])
    #expect(host.machineNames() == [name, other])
    #expect(host.kill(name))
    #expect(host.machine(name) == nil)
    #expect(host.machine(other)?.name == other)
  }

  @Test("killing every machine gives the directory's and the runtime's memory back")
  func killingEverythingGivesMemoryBack() throws {
    for number in 0..<10_000 {
      _ = try host.spawn(kind: number % 2 == 0 ? "door" : "counter", name: "m\(number)", state: nil)
        .get()
    }
    _ = host.finishTurn()
    #expect(host.directory.touchedBytes >= 10_000 * 32)
    for number in 0..<9_000 { #expect(host.kill("m\(number)")) }
    #expect(host.finishTurn().removedMachines == 9_000)
    #expect(host.directory.bucketCount < 16_384)
    for number in 9_000..<10_000 { #expect(host.kill("m\(number)")) }
    #expect(host.finishTurn().removedMachines == 1_000)
    #expect(host.machineCount == 0)
    #expect(host.directory.touchedBytes == 0)
    // The runtime gave its records back too: its next machine takes slot 0.
    let again = try host.spawn(kind: "door", name: "again", state: nil).get()
    #expect(again.id.index == 0)
    #expect(host.machine("again")?.stateText == "closed")
  }

  @Test("machines placed in preferred slots get them, are found by name there, and run")
  func placedInPreferredSlots() throws {
    let door = try #require(host.kindsByName["door"])
    for (name, slot): (String, UInt32) in [("a", 2), ("b", 7), ("c", 7), ("d", 9)] {
      let placed = name.withUTF8Bytes {
        host.place(kindSlot: door, name: $0, state: nil, .checked, preferredSlot: slot)
      }
      let id = try placed.get()
      if name == "c" {
        // A slot "b" has: "c" gets a free one, one of the holes left below it.
        #expect(id.index < 7 && id.index != 2)
      } else {
        #expect(id.index == slot)
      }
      #expect(host.machine(name)?.id == id)
    }
    post("open", to: "b")
    post("open", to: "d")
    runtime.dispatch()
    #expect(host.machine("b")?.stateText == "opened")
    #expect(host.machine("c")?.stateText == "closed")
    #expect(events.filter { $0.message.contains("emit") }.map(\.name) == ["b", "d"])
  }
}
