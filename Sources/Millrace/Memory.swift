/// The core's allocations of raw memory that grow with a runtime's capacities or machines:
/// one place, so that running out of memory is an answer (nil), checked where it happens.
///
/// Guarantees:
/// - Embedded Swift (the C library, microcontrollers): nil when the allocator refuses, which
///   the caller turns into a refused operation (`Runtime(reserving:)` nil, a spawn or an
///   observer refused), never a write through a null pointer. Embedded Swift's own
///   `allocate(capacity:)` does not check.
/// - With the full Swift runtime, which stops the program when it cannot allocate, never nil.
@usableFromInline
enum _Memory {
  /// `count` uninitialized `T`s (at least one), or nil when the allocator refuses or the
  /// byte count overflows `Int`.
  @inlinable
  static func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T>? {
    let (bytes, overflow) = MemoryLayout<T>.stride.multipliedReportingOverflow(by: max(count, 1))
    guard !overflow else { return nil }
    return allocate(bytes: bytes, alignment: MemoryLayout<T>.alignment)?
      .bindMemory(to: T.self, capacity: max(count, 1))
  }

  /// `bytes` uninitialized bytes aligned to `alignment` (a power of two), or nil when the
  /// allocator refuses.
  @usableFromInline
  static func allocate(bytes: Int, alignment: Int) -> UnsafeMutableRawPointer? {
    #if hasFeature(Embedded)
      // Not the `posix_memalign` Swift's objects come from: the C library tells the two apart
      // (millrace_memory.h) to keep room for objects, which cannot be refused.
      return _alignedAlloc(max(alignment, MemoryLayout<UnsafeRawPointer>.size), max(bytes, 1))
    #else
      return UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: alignment)
    #endif
  }
}

#if hasFeature(Embedded)
  /// The C library's `aligned_alloc` (C11), declared as Embedded Swift's runtime declares
  /// the allocator it uses itself.
  @_silgen_name("aligned_alloc")
  @usableFromInline
  func _alignedAlloc(_ alignment: Int, _ size: Int) -> UnsafeMutableRawPointer?
#endif
