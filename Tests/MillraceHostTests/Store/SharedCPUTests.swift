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

  @Test("a sort by comparison reaches its yield point every so many comparisons, and sorts")
  func sortYields() {
    var generator = SystemRandomNumberGenerator()
    let values = (0..<300_000).map { _ in UInt64.random(in: 0..<UInt64.max, using: &generator) }
    var sorted = values
    var (comparisons, yields) = (0, 0)
    sorted.withUnsafeMutableBufferPointer { buffer in
      SharedCPU.sort(
        buffer,
        by: { left, right in
          comparisons += 1
          return left < right
        }, yielding: { yields += 1 })
    }
    #expect(sorted == values.sorted())
    #expect(comparisons > 4 * SharedCPU.comparisonsPerYield)
    #expect(yields == comparisons / SharedCPU.comparisonsPerYield)
  }

  @Test("a checkpoint's read of a long journal reaches its yield points")
  func checkpointReadYields() {
    let records = ByteBuffer()
    for index in 0..<60_000 {
      let name = "device-\(index % 20_000)"
      JournalFormat.append(
        .save(StoredMachine(name: name, kind: "toggle", state: index % 2 == 0 ? "on" : "off")),
        epoch: 1, to: records)
    }
    let bytes = JournalFormat.header(epoch: 1) + records.bytes
    let before = SharedCPU.yields
    let start = SharedCPU.monotonicNanoseconds()
    var latest = 0
    bytes.withUnsafeBytes { journal in
      JournalFormat.forEachLatest(journal, byName: true) { _ in latest += 1 }
    }
    #expect(latest == 20_000)
    if SharedCPU.monotonicNanoseconds() - start > 4 * SharedCPU.period {
      #expect(SharedCPU.yields > before)
    }
  }
}
