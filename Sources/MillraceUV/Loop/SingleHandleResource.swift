import CLibUV

/// A loop resource that owns one libuv handle: taking the handle, closing it, freeing it and
/// unregistering when its close callback ran, and (un)referencing it work the same way for
/// every such resource (timers, signals, wakeups, path watchers, stdin, servers, connections).
///
/// Guarantees, for a resource that takes its handle with `adopt` or `own`:
/// - From then until its close callback ran, the loop keeps the resource alive and the handle's
///   `data` points to it (unretained: see `withOwner`).
/// - Closing happens once: `willCloseHandle()` runs first (only through `shutdown()`), then
///   `uv_close`; when the close callback ran, the handle is freed, `handle` is nil,
///   `didCloseHandle()` runs, and the resource unregisters, in that order.
protocol SingleHandleResource: LoopResource, ClosableHandleOwner {
  /// The concrete handle type (`uv_timer_t`, `uv_signal_t`, `uv_stream_t`, ...).
  associatedtype Handle
  /// The loop the handle lives on.
  var loop: EventLoop { get }
  /// The handle, nil before it is owned and once closed.
  var handle: UnsafeMutablePointer<Handle>? { get set }
  /// Stops what feeds the resource and drops its callbacks; called once by `shutdown()`, right
  /// before the handle is closed.
  func willCloseHandle()
  /// Releases what lived as long as the handle; called once, from its close callback, before
  /// the resource unregisters. Does nothing unless the resource says otherwise.
  func didCloseHandle()
}

extension SingleHandleResource {
  /// Takes `handle`, whose `uv_*_init` returned `rc`: on failure frees it and throws; else
  /// `own(handle)`.
  func adopt(_ handle: UnsafeMutablePointer<Handle>, initialized rc: Int32) throws(UVError) {
    if rc < 0 {
      deallocateUV(handle)
      throw UVError(rc)
    }
    own(handle)
  }

  /// Takes an initialised `handle`: its `data` points to the resource, and the loop keeps the
  /// resource until the handle closed.
  func own(_ handle: UnsafeMutablePointer<Handle>) {
    self.handle = handle
    asHandle(handle).pointee.data = Unmanaged.passUnretained(self).toOpaque()
    loop.register(self)
  }

  /// Begins closing the handle: `willCloseHandle()`, then `closeHandle()`. Idempotent.
  func shutdown() {
    guard let handle, uv_is_closing(asHandle(handle)) == 0 else { return }
    willCloseHandle()
    closeHandle()
  }

  /// Begins closing the handle, without `willCloseHandle()` (for a resource whose `shutdown()`
  /// does more). Idempotent.
  func closeHandle() {
    guard let handle, uv_is_closing(asHandle(handle)) == 0 else { return }
    uv_close(asHandle(handle), closeHandleCallback)
  }

  /// The close callback ran: free the handle, `didCloseHandle()`, unregister.
  func handleDidClose(_ raw: UnsafeMutablePointer<uv_handle_t>) {
    deallocateUV(raw)
    handle = nil
    didCloseHandle()
    loop.unregister(self)
  }

  func didCloseHandle() {}

  /// Whether the handle does not keep `EventLoop.run()` from returning (`uv_unref`).
  var handleIsUnreferenced: Bool {
    get { handle.map { uv_has_ref(asHandle($0)) == 0 } ?? true }
    set {
      guard let handle else { return }
      if newValue { uv_unref(asHandle(handle)) } else { uv_ref(asHandle(handle)) }
    }
  }
}

/// Closes a handle that no resource owns and frees its memory once libuv is done with it.
func discardHandle<T>(_ handle: UnsafeMutablePointer<T>) {
  let raw = asHandle(handle)
  raw.pointee.data = nil
  uv_close(raw) { deallocateUV(UnsafeMutableRawPointer($0!)) }
}
