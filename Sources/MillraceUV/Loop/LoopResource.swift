import CLibUV

/// Something that owns libuv handles or requests on an `EventLoop` and must be shut down with it.
///
/// Every public object that creates a handle registers itself with its loop at creation; the loop
/// keeps it alive (strong reference) until the object reports that its handles are closed. That
/// is what lets `EventLoop.close()` find and close everything, and lets `handle->data` hold an
/// unretained pointer to the owner safely: the registry, not the C side, owns the object.
protocol LoopResource: AnyObject {
  /// Begins closing the resource's handles. Idempotent. When the last close callback ran, the
  /// resource calls `loop.unregister(self)`.
  func shutdown()
}

/// Allocates zeroed memory for one libuv handle or request of type `T`.
@inline(__always)
func allocateUV<T>(_: T.Type) -> UnsafeMutablePointer<T> {
  let raw = UnsafeMutableRawPointer.allocate(
    byteCount: MemoryLayout<T>.size, alignment: max(MemoryLayout<T>.alignment, 16))
  raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
  return raw.bindMemory(to: T.self, capacity: 1)
}

/// Frees memory obtained from `allocateUV`.
@inline(__always)
func deallocateUV(_ pointer: UnsafeMutableRawPointer) {
  pointer.deallocate()
}

/// Views a concrete handle (`uv_timer_t`, `uv_tcp_t`, ...) as the `uv_handle_t` it starts with.
@inline(__always)
func asHandle<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_handle_t> {
  UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_handle_t.self)
}

/// Views a stream handle (`uv_tcp_t`, `uv_pipe_t`, `uv_tty_t`) as the `uv_stream_t` it starts with.
@inline(__always)
func asStream<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_stream_t> {
  UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_stream_t.self)
}

/// Calls `body` with the owner stored in `handle->data`, borrowed: no retain and release per
/// callback. Safe in every callback but a close callback, because the loop's registry keeps
/// the owner alive until its handle's close callback ran.
@inline(__always)
func withOwner<Owner: AnyObject, Result>(
  of handle: UnsafeMutablePointer<uv_handle_t>?, as _: Owner.Type,
  _ body: (Owner) -> Result
) -> Result {
  Unmanaged<Owner>.fromOpaque(handle!.pointee.data!)._withUnsafeGuaranteedRef(body)
}

/// The close callback every `MillraceUV` handle uses: `handle->data` is an unretained pointer to
/// a `ClosableHandleOwner`, which frees the handle memory and unregisters.
let closeHandleCallback: uv_close_cb = { handle in
  guard let handle, let data = handle.pointee.data else { return }
  let object = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue()
  (object as! any ClosableHandleOwner).handleDidClose(handle)
}

/// A resource whose handle closes through `closeHandleCallback`.
protocol ClosableHandleOwner: AnyObject {
  /// Called from the handle's close callback: free `handle` and unregister from the loop.
  func handleDidClose(_ handle: UnsafeMutablePointer<uv_handle_t>)
}
