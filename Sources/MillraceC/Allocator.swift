import CMillrace
import CMillrace.LibC

// The heap, for runtimes made by `millrace_create`: one block each, from the allocator set
// with `millrace_set_allocator` or the C library's `malloc` and `free`. Nothing else in the
// library allocates.

/// The allocator `millrace_set_allocator` set, if any. Like every allocating call, setting it
/// is for one thread at a time (millrace.h, "Memory").
nonisolated(unsafe) var _chosenAllocator: millrace_allocator_t?

extension _Runtime {
  /// A runtime laid out by `layout` in a block of the allocator in use, or nil when the
  /// allocator refuses.
  static func make(onHeap layout: _Layout) -> _RuntimePointer? {
    // The C library's otherwise: `malloc`'s blocks are aligned for every standard type, more
    // than `_Layout.alignment`.
    let allocator =
      _chosenAllocator
      ?? millrace_allocator_t(
        allocate: { _, size, _ in malloc(size) }, deallocate: { _, memory in free(memory) },
        context: nil)
    guard
      let block = allocator.allocate.unsafelyUnwrapped(
        allocator.context, layout.bytes, _Layout.alignment)
    else { return nil }
    let runtime = make(in: block, layout)
    runtime.pointee.allocator = allocator
    return runtime
  }
}

extension UnsafeMutablePointer where Pointee == _Runtime {
  /// Ends the runtime: its memory goes back to the allocator it came from, if any.
  func destroy() {
    let allocator = pointee.allocator
    deinitialize(count: 1)
    if let allocator { allocator.deallocate.unsafelyUnwrapped(allocator.context, self) }
  }
}
