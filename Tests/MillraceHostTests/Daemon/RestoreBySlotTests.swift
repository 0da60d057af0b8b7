import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// A restore puts each machine back in the slot it was stored in (the image is indexed by slot):
/// holes left by kills stay holes and nothing is written back; a machine the runtime cannot
/// give its slot is moved in the store.
@Suite("Restore by slot")
struct RestoreBySlotTests {
  let directory = StoreFixtures.directory("millrace-restore-slot")

  func host(_ store: MachineStore, machines: Int = 64) -> MachineHost {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: machines))
    let host = MachineHost(runtime: runtime, store: store, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 0)
    }
    host.register([Counter.kind])
    return host
  }

  /// The records of the active journal's current epoch (what was committed since the last
  /// checkpoint).
  func journalRecords() throws -> Int {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/machines.journal"))
    return bytes.withUnsafeBytes {
      JournalFormat.scan($0, epoch: JournalFormat.epoch(ofHeader: $0) ?? 0).records
    }
  }

  /// Spawns `c0` ... `c9` (slots 0 to 9, `cN` counted up N times), kills `killed`, stops.
  func storeCounters(killing killed: [Int]) throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let host = host(store)
    for number in 0..<10 {
      let machine = try host.spawn(kind: "counter", name: "c\(number)", state: nil).get()
      #expect(machine.id.index == UInt32(number))
      for _ in 0..<number { _ = machine.post("inc", tag: .none) }
    }
    host.runtime.dispatch()
    _ = host.finishTurn()
    for number in killed { #expect(host.kill("c\(number)")) }
    _ = host.finishTurn()
    #expect(host.closeStore())
  }

  @Test("holes left by kills survive a restart; every machine is back in its slot, unwritten")
  func holesSurvive() throws {
    try storeCounters(killing: [2, 3, 7])
    let store = try MachineStore(directory: directory, durability: .batched)
    let host = host(store)
    #expect(try host.restore() == [])
    for number in [0, 1, 4, 5, 6, 8, 9] {
      let machine = try #require(host.machine("c\(number)"))
      #expect(machine.id.index == UInt32(number))
      #expect(machine.stateText == "\(number)")
    }
    #expect(host.machine("c2") == nil && host.machineCount == 7)
    // Nothing moved: the restore wrote nothing.
    #expect(try journalRecords() == 0)
    // The holes are taken by the next machines.
    let next = try host.spawn(kind: "counter", name: "n", state: nil).get()
    #expect([2, 3, 7].contains(next.id.index))
  }

  @Test("a machine whose slot the runtime cannot give is moved in the store, and stays moved")
  func movedWhenTheSlotIsOutOfReach() throws {
    try storeCounters(killing: [0, 1, 2, 3, 4])
    do {
      // Room for 6 machines: c5 keeps slot 5; c6 to c9 go to free slots below it.
      let store = try MachineStore(directory: directory, durability: .batched)
      let host = host(store, machines: 6)
      #expect(try host.restore() == [])
      #expect(host.machine("c5")?.id.index == 5)
      let moved = (6...9).map { host.machine("c\($0)")!.id.index }
      #expect(moved.allSatisfy { $0 < 5 } && Set(moved).count == 4)
      #expect((5...9).allSatisfy { host.machine("c\($0)")?.stateText == "\($0)" })
      // Four deletes from the old slots and four saves in the new ones.
      #expect(try journalRecords() == 8)
      #expect(host.closeStore())
    }
    let store = try MachineStore(directory: directory, durability: .batched)
    #expect(try store.count() == 5)
    let host = host(store)
    #expect(try host.restore() == [])
    #expect((5...9).allSatisfy { host.machine("c\($0)")?.stateText == "\($0)" })
    #expect((6...9).allSatisfy { host.machine("c\($0)")!.id.index < 5 })
    #expect(try journalRecords() == 0)
  }
}
