import CHeap
import Testing

@testable import MillraceHost

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Memory a turn gives back is freed on a thread of its own (`HeapRelease.inBackground`).
@Suite("Heap release")
struct HeapReleaseTests {
  static let blockBytes = 32 << 20

  /// The heap's bytes in use (glibc: arenas and mapped blocks).
  func inUse() -> Int { Int(millrace_heap_bytes_in_use()) }

  /// Whether the heap's statistics see an allocation: not under a sanitizer's allocator, whose
  /// blocks glibc does not count.
  static var statisticsSeeAllocations: Bool {
    let before = Int(millrace_heap_bytes_in_use())
    let block = UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 16)
    defer { block.deallocate() }
    return Int(millrace_heap_bytes_in_use()) - before >= blockBytes
  }

  @Test(
    "blocks handed to inBackground are freed, those to deallocate and those to free",
    .enabled(if: statisticsSeeAllocations, "the heap's statistics are glibc's allocator's"))
  func blocksAreFreed() async throws {
    var blocks = HeapRelease.Blocks()
    for _ in 0..<3 {
      let block = UnsafeMutableRawPointer.allocate(byteCount: Self.blockBytes, alignment: 16)
      block.initializeMemory(as: UInt8.self, repeating: 1, count: Self.blockBytes)
      blocks.deallocating.append(block)
    }
    for _ in 0..<2 {
      let block = try #require(calloc(Self.blockBytes, 1))
      memset(block, 1, Self.blockBytes)
      blocks.freeing.append(block)
    }
    let before = inUse()
    HeapRelease.inBackground(blocks)
    // Other tests allocate meanwhile: most of the 160 MiB is enough.
    var freed = 0
    for _ in 0..<500 where freed < 4 * Self.blockBytes {
      try await Task.sleep(for: .milliseconds(10))
      freed = before - inUse()
    }
    #expect(freed >= 4 * Self.blockBytes)
  }

  @Test("a large block's whole pages are discarded before it is freed; a small block is left alone")
  func largeBlocksArePagedOut() {
    let large = UnsafeMutableRawPointer.allocate(byteCount: 8 << 20, alignment: 16)
    let small = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
    defer {
      large.deallocate()
      small.deallocate()
    }
    large.initializeMemory(as: UInt8.self, repeating: 1, count: 8 << 20)
    small.initializeMemory(as: UInt8.self, repeating: 1, count: 4096)
    HeapRelease.discardPages(of: large)
    HeapRelease.discardPages(of: small)
    let bytes = large.assumingMemoryBound(to: UInt8.self)
    // The pages inside read zeros now; the bytes before the first whole page, which share a
    // page with the allocator's header, are kept.
    #expect(bytes[4 << 20] == 0)
    #expect(bytes[(8 << 20) - 8192] == 0)
    if Int(bitPattern: large) % 4096 != 0 { #expect(bytes[0] == 1) }
    #expect((0..<4096).allSatisfy { small.load(fromByteOffset: $0, as: UInt8.self) == 1 })
  }
}
