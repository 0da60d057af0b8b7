import MillraceWire
import Testing

@testable import MillraceHost

/// The checkpoint's long loops hand the CPU over now and then, and no more often than the
/// period (what a loop thread sharing the CPU may wait for them: `make scale`'s bystander
/// during SPAWN measures the effect).
@Suite("Shared CPU", .serialized)
struct SharedCPUTests {
  @Test("calling it in a tight loop yields at most once a period")
  func atMostOncePerPeriod() {
    let calls = 200_000
    let before = SharedCPU.yields
    let start = SharedCPU.monotonicNanoseconds()
    for _ in 0..<calls { SharedCPU.yield() }
    let elapsed = SharedCPU.monotonicNanoseconds() - start
    let yielded = SharedCPU.yields - before
    // However long the calls took (a loaded machine, a yield that waited): a yield per
    // period at most, and far fewer yields than calls. Other tests' checkpoints yield too, on
    // their threads: a few more at most.
    #expect(yielded <= elapsed / SharedCPU.period + 4)
    #expect(yielded < calls / 100)
  }

  @Test("a checkpoint of a long journal reaches its yield points")
  func checkpointYields() throws {
    let directory = StoreFixtures.directory("millrace-shared-cpu")
    let store = try MachineStore(directory: directory, durability: .batched)
    for index in 0..<60_000 {
      "device-\(index % 20_000)".withUTF8Bytes {
        store.save(
          slot: UInt32(index % 20_000), nameUTF8: $0, kind: "toggle",
          state: index % 2 == 0 ? "on" : "off")
      }
    }
    try store.commit()
    let before = SharedCPU.yields
    let start = SharedCPU.monotonicNanoseconds()
    try store.checkpoint()
    if SharedCPU.monotonicNanoseconds() - start > 4 * SharedCPU.period {
      #expect(SharedCPU.yields > before)
    }
    #expect(try store.count() == 20_000)
  }
}
