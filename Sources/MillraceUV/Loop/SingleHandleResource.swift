import CLibUV

/// A loop resource that owns exactly one libuv handle: closing it, unregistering it when the
/// close callback ran, and (un)referencing it work the same way for every such resource.
protocol SingleHandleResource: LoopResource, ClosableHandleOwner {
  /// The concrete handle type (`uv_timer_t`, `uv_signal_t`, ...).
  associatedtype Handle
  /// The loop the handle lives on.
  var loop: EventLoop { get }
  /// The handle, nil once closed.
  var handle: UnsafeMutablePointer<Handle>? { get set }
  /// Drops the resource's callbacks; called once, when closing starts.
  func releaseCallbacks()
}

extension SingleHandleResource {
  /// Takes `handle`, whose `uv_*_init` returned `rc`: on failure frees it and throws; else
  /// the resource owns it (its `data` points to the resource, the loop keeps the resource
  /// until the handle closed).
  func adopt(_ handle: UnsafeMutablePointer<Handle>, initialized rc: Int32) throws(UVError) {
    if rc < 0 {
      deallocateUV(handle)
      throw UVError(rc)
    }
    self.handle = handle
    asHandle(handle).pointee.data = Unmanaged.passUnretained(self).toOpaque()
    loop.register(self)
  }

  /// Begins closing the handle (idempotent).
  func shutdown() {
    guard let handle, uv_is_closing(asHandle(handle)) == 0 else { return }
    releaseCallbacks()
    uv_close(asHandle(handle), closeHandleCallback)
  }

  /// The close callback ran: free the handle and unregister.
  func handleDidClose(_ raw: UnsafeMutablePointer<uv_handle_t>) {
    deallocateUV(raw)
    handle = nil
    loop.unregister(self)
  }

  /// Whether the handle does not keep `EventLoop.run()` from returning (`uv_unref`).
  var handleIsUnreferenced: Bool {
    get { handle.map { uv_has_ref(asHandle($0)) == 0 } ?? true }
    set {
      guard let handle else { return }
      if newValue { uv_unref(asHandle(handle)) } else { uv_ref(asHandle(handle)) }
    }
  }
}
