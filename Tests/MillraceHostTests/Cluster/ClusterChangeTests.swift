import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// A cluster node's host keeps the machines of each hash slot, and its map never changes in a
/// way that strands them: `CLUSTER SETSLOT` and reloads that would are refused.
@Suite("Cluster changes")
final class ClusterChangeTests {
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 1 << 12))
  let host: MachineHost
  let directory: URL
  var path: String { directory.appendingPathComponent("cluster.conf").path }
  static let me = String(repeating: "a", count: 40)
  static let other = String(repeating: "b", count: 40)

  init() throws {
    host = MachineHost(runtime: runtime, store: nil, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 0)
    }
    host.register([Counter.kind])
    host.trackSlots()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cluster-change-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// Writes a map where this node owns `mine` and the other node the rest.
  func write(mine: ClosedRange<Int>, myself: String = me) throws {
    var lines = ["node \(Self.me) 127.0.0.1:7001 \(mine.lowerBound)-\(mine.upperBound)"]
    var rest: [String] = []
    if mine.lowerBound > 0 { rest.append("0-\(mine.lowerBound - 1)") }
    if mine.upperBound < 16383 { rest.append("\(mine.upperBound + 1)-16383") }
    lines.append("node \(Self.other) 127.0.0.1:7002 " + rest.joined(separator: " "))
    lines.append("myself \(myself)")
    try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
  }

  func spawn(_ name: String) throws {
    _ = try host.spawn(kind: "counter", name: name, state: nil).get()
  }

  @Test func machinesAreKeptPerSlot() throws {
    // "bar" is in slot 5061, "{bar}x" and "{bar}y" too; "foo" in 12182.
    for name in ["bar", "{bar}x", "{bar}y", "foo"] { try spawn(name) }
    #expect(host.machineCount(inSlot: 5061) == 3)
    #expect(host.machineCount(inSlot: 12182) == 1)
    #expect(Set(host.machineNames(inSlot: 5061, limit: 10)) == ["bar", "{bar}x", "{bar}y"])
    #expect(host.machineNames(inSlot: 5061, limit: 2).count == 2)
    #expect(host.machineNames(inSlot: 5061, limit: 0) == [])
    #expect(host.kill("{bar}x"))
    #expect(Set(host.machineNames(inSlot: 5061, limit: 10)) == ["bar", "{bar}y"])
    #expect(host.kill("bar") && host.kill("{bar}y"))
    #expect(host.machineCount(inSlot: 5061) == 0 && host.machineNames(inSlot: 5061, limit: 9) == [])
    #expect(host.machines(inSlots: [5061, 12182]).description == "1 machine: foo")
    host.removeAll()
    #expect(host.machineCount(inSlot: 12182) == 0)
    try spawn("foo")
    #expect(host.machineNames(inSlot: 12182, limit: 5) == ["foo"])
  }

  @Test func manyMachinesInOneSlotAreSampled() throws {
    for index in 0..<20 { try spawn("pump:{A}:\(index)") }
    let sample = host.machines(inSlots: [Int(HashSlot.of("A"))])
    #expect(sample.count == 20 && sample.first.count == NameSample.kept)
  }

  @Test func setSlotMovesAnEmptySlotButNotOneWithMachines() throws {
    try write(mine: 0...8191)
    let cluster = try Cluster(map: ClusterMapReader.read(path: path), path: path, host: host)
    try spawn("bar")  // slot 5061
    #expect(throws: ClusterChangeError.unknownNode("nope")) {
      try cluster.setSlot(5, to: "nope")
    }
    #expect(
      throws: ClusterChangeError.slotsHoldMachines(slots: [5061], machines: sample(["bar"]))
    ) { try cluster.setSlot(5061, to: Self.other) }
    #expect(cluster.map.isMine(5061))
    try cluster.setSlot(5060, to: Self.other)
    #expect(!cluster.map.isMine(5060))
    try cluster.setSlot(16000, to: Self.me)
    #expect(cluster.map.isMine(16000))
    // Once the machine is gone, its slot can go.
    #expect(host.kill("bar"))
    try cluster.setSlot(5061, to: Self.other)
    #expect(!cluster.map.isMine(5061))
  }

  @Test func reloadReadsTheFileOrKeepsTheMap() throws {
    try write(mine: 0...8191)
    let cluster = try Cluster(map: ClusterMapReader.read(path: path), path: path, host: host)
    try cluster.setSlot(9000, to: Self.me)
    try write(mine: 0...100)
    #expect(try cluster.reload() == nil)
    // The file is the map again: the SETSLOT change is gone with it.
    #expect(cluster.map.isMine(100) && !cluster.map.isMine(101) && !cluster.map.isMine(9000))
    try spawn("bar")  // slot 5061, not this node's any more: spawned by the host directly
    try write(mine: 0...5000)
    #expect(throws: ClusterChangeError.self) { try cluster.reload() }
    try Data("node x\n".utf8).write(to: URL(fileURLWithPath: path))
    do {
      try cluster.reload()
      Issue.record("a malformed file was loaded")
    } catch {
      if case .file(let problems) = error {
        #expect(problems.file == path && problems.problems.count == 2)
      } else {
        Issue.record("\(error)")
      }
    }
    try write(mine: 0...16383, myself: Self.other)
    #expect(throws: ClusterChangeError.myselfChanged(from: Self.me, to: Self.other)) {
      try cluster.reload()
    }
    #expect(cluster.map.isMine(100) && !cluster.map.isMine(101))
  }

  @Test func aNodeDoesNotStartWithMachinesInSlotsItDoesNotOwn() throws {
    try spawn("bar")  // slot 5061
    try spawn("foo")  // slot 12182
    try write(mine: 0...5000)
    let map = try ClusterMapReader.read(path: path)
    #expect(
      throws: ClusterChangeError.slotsHoldMachines(
        slots: [5061, 12182], machines: sample(["bar", "foo"]))
    ) { try Cluster(map: map, path: path, host: host) }
    try write(mine: 5000...16383)
    _ = try Cluster(map: ClusterMapReader.read(path: path), path: path, host: host)
  }

  @Test func theRefusalSaysWhatAndWhy() {
    let error = ClusterChangeError.slotsHoldMachines(
      slots: Array(1...9), machines: sample(["a", "b"]))
    #expect(
      error.description
        == "the change takes slots 1, 2, 3, 4, 5, 6, 7, 8, … from this node, which hosts 2 "
        + "machines: a, b in them; the map stays as it was (move them first: MIGRATE)")
  }

  private func sample(_ names: [String]) -> NameSample {
    var sample = NameSample()
    for name in names { sample.add(name) }
    return sample
  }
}
