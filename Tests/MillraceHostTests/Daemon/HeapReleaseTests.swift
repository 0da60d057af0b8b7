import Testing

@testable import MillraceHost

#if canImport(Glibc)
  import Glibc

  /// The daemon's heap policy: large one-off blocks (a checkpoint's arrays at a million
  /// machines) get mappings of their own, returned to the system when freed, instead of
  /// staying resident in a thread's heap.
  @Suite("Heap release")
  struct HeapReleaseTests {
    /// Whether glibc gave the block at `pointer` a mapping of its own (the `IS_MMAPPED` bit of
    /// its chunk's size word, just before the block).
    static func hasOwnMapping(_ pointer: UnsafeMutableRawPointer) -> Bool {
      pointer.load(fromByteOffset: -MemoryLayout<Int>.size, as: UInt.self) & 2 != 0
    }

    /// Whether a sanitizer's allocator stands in for glibc's (`make sanitize`): its blocks have
    /// no glibc chunk header, and mallopt does not apply to them.
    static let underSanitizer = ["__asan_init", "__tsan_init"].contains { (name: String) in
      dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
    }

    @Test(
      "after a large block was freed, the next large one still gets its own mapping",
      .enabled(if: !underSanitizer, "a sanitizer's allocator replaces glibc's"))
    func largeBlocksKeepTheirOwnMapping() throws {
      HeapRelease.configure()
      // Without the fixed threshold, freeing this one raises glibc's to 16 MiB.
      free(try #require(malloc(16 << 20)))
      for size in [HeapRelease.ownMappingThreshold, 4 << 20] {
        let block = try #require(malloc(size))
        #expect(Self.hasOwnMapping(block))
        free(block)
      }
      let small = try #require(malloc(HeapRelease.ownMappingThreshold / 4))
      #expect(!Self.hasOwnMapping(small))
      free(small)
    }
  }
#endif
