import CMillrace

// The package builds the C API as its own module over the core; the Makefile compiles both
// into one module (`Millrace`) for the C library.
#if MILLRACE_C_MODULE
  import Millrace
#endif

// The memory half of the C API (millrace.h, "Memory"): runtimes in callers' buffers, and the
// room an allocating call needs. In the Embedded Swift library every allocation passes
// through CSupport/CMillrace/memory (millrace_memory.h); the libuv build, against the full
// Swift runtime, allocates from that runtime's heap and cannot place a runtime in a buffer.

/// What an allocating call may allocate without checking: Swift's own objects and arrays
/// (a class instance, a closure context, an array's buffer), which Embedded Swift cannot
/// refuse (it stops the program). The call first reserves that many bytes; the core's
/// checked allocations (`_Memory`) are then refused rather than leave less than the rest of
/// the reserve. In machine words, so that a 64-bit host asks for twice the bytes of a 32-bit
/// target; `make c-tests` and the ARM runs hold every call to them (memory_test.c, buffers
/// and heaps of every size).
enum Room {
  static let word = MemoryLayout<Int>.size
  /// `millrace_create`: the runtime's objects.
  static let create = 96 * word
  /// `millrace_observe`: the observer's box and closure.
  static let observe = 32 * word
  /// `millrace_set_diagnostic_observer`: the observer's closure.
  static let observer = 16 * word
  /// `millrace_spawn` with `queues` queues: the queue array and, for a new variant, the variant,
  /// its layout and the growth of the runtime's variant and pool arrays.
  static func spawn(queues: Int) -> Int { (128 + 12 * queues) * word }

  /// Reserves `bytes` for the call in progress in the memory entered; false when they
  /// cannot be had (always true with the full Swift runtime, which stops the program when it
  /// cannot allocate).
  static func has(_ bytes: Int) -> Bool {
    #if hasFeature(Embedded)
      return millrace_memory_reserve(bytes) != 0
    #else
      return true
    #endif
  }
}

/// Runs `body` with `region`'s memory entered (nil: the heap).
func withMemoryRegion<T>(_ region: OpaquePointer?, _ body: () -> T) -> T {
  #if hasFeature(Embedded)
    let previous = millrace_memory_enter(region)
    defer { millrace_memory_leave(previous) }
  #endif
  return body()
}

/// Makes the C library's allocator the heap unless one was set (`millrace_create`).
func installHeap() {
  #if hasFeature(Embedded)
    millrace_heap_install()
  #endif
}

/// Gives a destroyed runtime's buffer back to its caller (nil: nothing to give).
func releaseRegion(_ region: OpaquePointer?) {
  #if hasFeature(Embedded)
    if let region { millrace_region_destroy(region) }
  #endif
}

/// `millrace_create_in`: a runtime whose every byte comes from the caller's buffer.
@_cdecl("millrace_create_in")
func cCreateIn(
  _ buffer: UnsafeMutableRawPointer?, _ size: Int,
  _ capacity: UnsafePointer<millrace_capacity_t>?, _ runtime: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let buffer, let runtime,
    let fixed = RuntimeCapacity(c: capacity?.pointee ?? millrace_capacity_t())
  else { return MILLRACE_INVALID.code }
  #if hasFeature(Embedded)
    // A `size_t` beyond `Int.max` arrives negative; C reads it back as the `size_t` it was.
    guard let region = millrace_region_create(buffer, size) else {
      return MILLRACE_NO_CAPACITY.code
    }
    let result = CRuntime.create(capacity: fixed, region: region, into: runtime)
    if result != MILLRACE_OK.code { millrace_region_destroy(region) }
    return result
  #else
    _ = (buffer, fixed)
    return MILLRACE_UNSUPPORTED.code
  #endif
}

/// `millrace_memory_stats`: how much of a runtime's buffer is in use.
@_cdecl("millrace_memory_stats")
func cMemoryStats(
  _ pointer: OpaquePointer?, _ stats: UnsafeMutablePointer<millrace_memory_stats_t>?
) -> Int32 {
  guard let owner = CRuntime.from(pointer), let stats else { return MILLRACE_INVALID.code }
  #if hasFeature(Embedded)
    guard let region = owner.region else { return MILLRACE_INVALID.code }
    stats.pointee = millrace_memory_stats_t(
      size: millrace_region_size(region), used: millrace_region_used(region),
      high_water: millrace_region_high_water(region))
    return MILLRACE_OK.code
  #else
    return MILLRACE_INVALID.code
  #endif
}

#if !hasFeature(Embedded)
  /// `millrace_set_allocator`: not in this build, whose Swift runtime allocates on its own.
  @_cdecl("millrace_set_allocator")
  func cSetAllocator(_ allocator: UnsafePointer<millrace_allocator_t>?) -> Int32 {
    MILLRACE_UNSUPPORTED.code
  }
#endif
