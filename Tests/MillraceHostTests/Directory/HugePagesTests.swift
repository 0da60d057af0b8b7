import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// `HugePages`: the tables a request reads at random by slot are advised for huge pages from
/// the slot the lookahead starts at, whole huge pages only, again after they are reserved
/// afresh; small tables and the slots below are left as they are.
@Suite("Huge pages for the large tables")
struct HugePagesTests {
  /// Whether the system takes the advice (`madvise` refuses it without transparent huge
  /// pages).
  static let systemHasHugePages = FileManager.default.fileExists(
    atPath: "/sys/kernel/mm/transparent_hugepage/enabled")

  /// Whether the mapping that holds `address` is advised for huge pages: `hg` among its
  /// `VmFlags` in /proc/self/smaps.
  static func isAdvised(_ address: UnsafeRawPointer) throws -> Bool {
    // Read to the end: a /proc file reports no size to read up to.
    let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
    defer { try? file.close() }
    let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    let target = UInt(bitPattern: Int(bitPattern: address))
    var inside = false
    for line in smaps.split(separator: "\n") {
      if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "),
        dash < space, let start = UInt(line[..<dash], radix: 16),
        let end = UInt(line[line.index(after: dash)..<space], radix: 16)
      {
        inside = start <= target && target < end
      } else if inside, line.hasPrefix("VmFlags:") {
        return line.split(separator: " ").contains("hg")
      }
    }
    Issue.record("no mapping holds \(address)")
    return false
  }

  @Test("a table of two huge pages or more starts on one, a smaller one as asked, all zero")
  func zeroedTablesAreAligned() {
    let large = HugePages.zeroed(bytes: 2 * HugePages.size, alignment: 64)
    defer { free(large.allocation) }
    #expect(Int(bitPattern: large.start) % HugePages.size == 0)
    #expect(large.start.load(as: UInt64.self) == 0)
    #expect(large.start.load(fromByteOffset: 2 * HugePages.size - 8, as: UInt64.self) == 0)
    let small = HugePages.zeroed(bytes: 1000, alignment: 64)
    defer { free(small.allocation) }
    #expect(Int(bitPattern: small.start) % 64 == 0)
    #expect(small.start - small.allocation < 64)
    #expect(small.start.load(fromByteOffset: 992, as: UInt64.self) == 0)
  }

  @Test("only the whole huge pages inside a range are advised")
  func wholePagesOnly() throws {
    // A mapping of its own, which no allocation before was advised in.
    let length = 10 << 20
    let mapping = try #require(
      mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
    #expect(mapping != MAP_FAILED)
    defer { munmap(mapping, length) }
    let start = UnsafeMutableRawPointer(
      bitPattern: (Int(bitPattern: mapping) + HugePages.size - 1) & ~(HugePages.size - 1))!
    // From 1 MiB in to 1 MiB before the end: the huge pages at 2 and 4 MiB in.
    let advised = HugePages.advise(UnsafeRawBufferPointer(start: start + (1 << 20), count: 6 << 20))
    #expect(advised == (Self.systemHasHugePages ? 4 << 20 : 0))
    // Less than a huge page once rounded inward: nothing.
    #expect(HugePages.advise(UnsafeRawBufferPointer(start: start + 1, count: HugePages.size)) == 0)
    guard Self.systemHasHugePages else { return }
    #expect(try Self.isAdvised(start + (2 << 20)))
    #expect(try Self.isAdvised(start + (6 << 20) - 1))
    #expect(try !Self.isAdvised(start + (2 << 20) - 1))
    #expect(try !Self.isAdvised(start + (6 << 20)))
  }

  @Test("a bucket array of two huge pages or more starts on one and is advised whole")
  func bucketArrays() throws {
    guard Self.systemHasHugePages else { return }
    let large = NameBuckets.BucketArray.make(2 * HugePages.size / 4)
    defer { large.release() }
    let heads = try #require(large.heads)
    #expect(Int(bitPattern: heads) % HugePages.size == 0)
    #expect(try Self.isAdvised(heads))
    #expect(try Self.isAdvised(heads + large.count - 1))
  }

  @Test("a host advises its entries and records from the lookahead's slot on, again once freed")
  func hostTablesAreAdvisedFromTheLookaheadsSlot() throws {
    guard Self.systemHasHugePages else { return }
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 1 << 20))
    let host = MachineHost(runtime: runtime, store: nil, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 0)
    }
    host.register([Counter.kind])
    let from = UInt32(MachineHost.prefetchMachines)
    func check() throws {
      // Each table's slot `from` and 1,024 slots before it: the first huge page wholly past
      // the first is advised, the second's mapping is not.
      let tables: [(UInt32) -> UnsafeRawPointer] = [
        { runtime.recordBytes(ofSlot: $0)!.baseAddress! },
        { UnsafeRawPointer(host.directory.entry($0)) },
      ]
      for address in tables {
        let page = (Int(bitPattern: address(from)) + HugePages.size - 1) & ~(HugePages.size - 1)
        #expect(try Self.isAdvised(UnsafeRawPointer(bitPattern: page)!))
        #expect(try !Self.isAdvised(address(from - 1024)))
      }
    }
    try check()
    // Enough machines that killing them all frees both tables (over 64 KiB of each written).
    for number in 0..<3_000 {
      _ = try host.spawn(kind: "counter", name: "c\(number)", state: nil).get()
    }
    _ = host.finishTurn()
    let records = try #require(runtime.recordBytes(ofSlot: from)).baseAddress
    let entries = UnsafeRawPointer(host.directory.entry(from))
    for number in 0..<3_000 { #expect(host.kill("c\(number)")) }
    #expect(host.finishTurn().removedMachines == 3_000)
    #expect(try #require(runtime.recordBytes(ofSlot: from)).baseAddress != records)
    #expect(UnsafeRawPointer(host.directory.entry(from)) != entries)
    try check()
  }
}
