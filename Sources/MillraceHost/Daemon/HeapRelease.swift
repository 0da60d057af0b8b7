#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// How the daemon gives freed heap memory back to the system, so that its resident size
/// follows what it holds (a million machines killed, a burst of clients gone) instead of its
/// peak. Both calls are glibc's, looked up at run time (Glibc's module map exports neither);
/// where the C library has none they do nothing.
enum HeapRelease {
  /// Blocks of at least this many bytes get their own mapping, returned to the system when
  /// freed (glibc's `M_MMAP_THRESHOLD`).
  static let ownMappingThreshold = 256 << 10

  /// Fixes the size from which an allocation gets its own mapping at `ownMappingThreshold`.
  ///
  /// glibc raises that size after every such block is freed (up to 32 MiB), so the
  /// checkpoint worker's one-off arrays for a large journal (tens of MiB at a million
  /// machines) end up in its thread's heap, where they stay resident under the SQLite pages
  /// allocated after them. A fixed threshold also keeps glibc's trimming of the heap top at
  /// its default instead of raising it alike. Call once, before the threads start.
  static func configure() {
    typealias Option = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = lookUp("mallopt") else { return }
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    _ = unsafeBitCast(symbol, to: Option.self)(mmapThreshold, Int32(ownMappingThreshold))
  }

  /// Returns free heap pages of every thread's heap to the system (glibc's `malloc_trim`).
  static func releaseFreePages() {
    typealias Trim = @convention(c) (Int) -> Int32
    guard let symbol = lookUp("malloc_trim") else { return }
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
  }

  /// Memory given back by a runtime (`Runtime.releaseMemory(above:handingOff:)`: each block
  /// to `deallocate()`) and by C allocations (each to `free`), to be freed by
  /// `inBackground(_:)`.
  struct Blocks: @unchecked Sendable {
    var deallocating: [UnsafeMutableRawPointer] = []
    var freeing: [UnsafeMutableRawPointer] = []

    var isEmpty: Bool { deallocating.isEmpty && freeing.isEmpty }

    /// Frees every block, a large one's pages given back a mebibyte at a time first, with the
    /// CPU yielded between (`SharedCPU.yield()`): on a CPU the loop shares, the kernel's work
    /// of taking back 88 MB held it for 4 ms in one piece.
    func release() {
      for block in deallocating {
        HeapRelease.discardPages(of: block)
        block.deallocate()
      }
      for block in freeing {
        HeapRelease.discardPages(of: block)
        free(block)
      }
    }
  }

  /// Frees `blocks` on a thread of its own, which ends when it is done, so that the calling
  /// thread does not wait for the system to take back their pages (about 5 ms for the 56 MB
  /// of a million machines' records, 3 ms for their 32 MB of directory entries), and which
  /// yields its CPU as it goes (`Blocks.release()`); then, with
  /// `thenTrim`, returns free heap pages (`releaseFreePages()`, over a millisecond after a
  /// million machines went). Where no thread can be started, does it here. Nothing to do:
  /// returns at once.
  static func inBackground(_ blocks: Blocks, thenTrim: Bool = false) {
    guard !blocks.isEmpty || thenTrim else { return }
    let work: @Sendable () -> Void = {
      blocks.release()
      if thenTrim { HeapRelease.releaseFreePages() }
    }
    if SystemThread.start(detached: true, work) == nil { work() }
  }

  /// Gives back the whole pages inside `block` (an allocation of at least
  /// `ownMappingThreshold` bytes, by its usable size; smaller ones are left alone), a
  /// mebibyte at a time, yielding the CPU between: its bytes become zeros, its allocation
  /// stays (the allocator's headers are outside those pages), to be freed next.
  static func discardPages(of block: UnsafeMutableRawPointer) {
    typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
    guard let symbol = usableSizeSymbol else { return }
    let size = unsafeBitCast(symbol, to: UsableSize.self)(block)
    guard size >= ownMappingThreshold else { return }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = (Int(bitPattern: block) + page - 1) / page * page
    let end = (Int(bitPattern: block) + size) / page * page
    var offset = start
    while offset < end {
      let length = min(1 << 20, end - offset)
      _ = madvise(UnsafeMutableRawPointer(bitPattern: offset), length, MADV_DONTNEED)
      offset += length
      SharedCPU.yield()
    }
  }

  /// glibc's `malloc_usable_size`, if the C library has it.
  nonisolated(unsafe) private static let usableSizeSymbol = lookUp("malloc_usable_size")

  /// A C library function as the program already links it (RTLD_DEFAULT, a null handle).
  private static func lookUp(_ name: String) -> UnsafeMutableRawPointer? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
  }
}
