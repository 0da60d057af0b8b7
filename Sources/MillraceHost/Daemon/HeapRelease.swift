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

  /// A C library function as the program already links it (RTLD_DEFAULT, a null handle).
  private static func lookUp(_ name: String) -> UnsafeMutableRawPointer? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
  }
}
