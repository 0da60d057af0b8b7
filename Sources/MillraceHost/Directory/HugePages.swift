#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Advice to the system to back a large table that requests read at random with huge pages
/// (`madvise(MADV_HUGEPAGE)`; 2 MiB where pages are 4 KiB), so that reaching one of its
/// lines costs a cache miss and not also a TLB miss and a walk of the page tables. At a
/// million machines the directory's entries, its buckets and the runtime's records span
/// 90 MB: about 22,000 pages of 4 KiB, far more than a TLB holds, or 45 huge pages.
///
/// Guarantees:
/// - Only whole huge pages inside the table are advised (its first and last, partly
///   outside, are left as they are), so no byte outside it changes how it is backed.
/// - Changes nothing a reader can observe: bytes, addresses and `madvise(MADV_DONTNEED)`
///   behave the same. A page is still mapped when first written, as 2 MiB where the system
///   has one free and as 4 KiB otherwise.
/// - Where the system has no huge pages, or transparent huge pages are off
///   (`/sys/kernel/mm/transparent_hugepage/enabled` set to `never`), or the platform is not
///   Linux, it does nothing.
enum HugePages {
  /// The size of a huge page, to which advised ranges are rounded inward.
  static let size = 2 << 20

  /// `bytes` of zeros from `calloc`, whose pages the system maps as they are first written,
  /// starting at a multiple of `alignment` (a power of two, at most `size`), or of `size`
  /// when they span at least two huge pages so that every huge page of them can be advised
  /// whole; and the allocation to `free`. The padding before the start is never written,
  /// so it is address space only.
  static func zeroed(
    bytes: Int, alignment: Int
  ) -> (start: UnsafeMutableRawPointer, allocation: UnsafeMutableRawPointer) {
    let boundary = bytes >= 2 * size ? size : alignment
    let allocation = calloc(bytes + boundary, 1)!
    let start = (Int(bitPattern: allocation) + boundary - 1) & ~(boundary - 1)
    return (UnsafeMutableRawPointer(bitPattern: start)!, allocation)
  }

  /// Advises the whole huge pages within `bytes`; returns how many bytes were advised (0 when
  /// none fits, or the system refused).
  @discardableResult
  static func advise(_ bytes: UnsafeRawBufferPointer) -> Int {
    #if os(Linux)
      guard let base = bytes.baseAddress else { return 0 }
      let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
      let end = (Int(bitPattern: base) + bytes.count) & ~(size - 1)
      guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else {
        return 0
      }
      return madvise(address, end - start, MADV_HUGEPAGE) == 0 ? end - start : 0
    #else
      return 0
    #endif
  }
}
