import CLibUV

/// A Swift object that owns one libuv handle of type `Handle` on an `EventLoop`: a timer, a
/// signal or path watcher, standard input, a server's listening socket, a connection. Taking
/// the handle, closing it, freeing it and (un)referencing it work the same way for all of them.
///
/// Guarantees:
/// - From the moment the object takes its handle until the handle's close callback ran, the
///   loop keeps the object alive, whether or not the caller keeps a reference, and the handle's
///   `data` points to it (unretained: see `withOwner`).
/// - `close()` (or `EventLoop.close()`) closes the handle once: the object first stops what
///   feeds it and drops its callbacks, so none runs afterwards; when libuv is done with the
///   handle its memory is freed and the loop lets the object go. Closing again does nothing.
/// - Use on the loop thread only.
public class LoopHandle<Handle> {
  /// The loop the handle lives on.
  public let loop: EventLoop
  /// The handle, nil before the object took it and once closed.
  @exclusivity(unchecked) final var handle: UnsafeMutablePointer<Handle>?

  /// Checks that `loop` can take a new handle (on its thread, not closed).
  init(on loop: EventLoop) {
    loop.checkUsable()
    self.loop = loop
  }

  /// Closes the handle and releases the callbacks; none runs afterwards. Idempotent.
  public func close() {
    loop.assertInLoop()
    shutdown()
  }

  /// Whether the handle does not keep `EventLoop.run()` from returning (`uv_unref`), for
  /// housekeeping handles that should not keep a loop alive on their own (a daemon's signal
  /// watchers, a periodic timer).
  public final var isUnreferenced: Bool {
    get { handle.map { uv_has_ref(asHandle($0)) == 0 } ?? true }
    set {
      guard let handle else { return }
      if newValue { uv_unref(asHandle(handle)) } else { uv_ref(asHandle(handle)) }
    }
  }

  /// Stops what feeds the object and drops its callbacks; called once by `shutdown()`, right
  /// before the handle is closed. Does nothing unless a subclass says otherwise.
  func willCloseHandle() {}

  /// Releases what lived as long as the handle; called once, from its close callback, after
  /// the handle was freed and before the loop lets the object go. Does nothing unless a
  /// subclass says otherwise.
  func didCloseHandle() {}

  /// Begins closing: `willCloseHandle()`, then `closeHandle()`. Idempotent.
  func shutdown() {
    guard let handle, uv_is_closing(asHandle(handle)) == 0 else { return }
    willCloseHandle()
    closeHandle()
  }

  /// Allocates a handle and initialises it with `initialize` (a `uv_*_init`): on failure frees
  /// it and throws the error; else `own`s it and returns it.
  @discardableResult
  final func adopt(
    _ initialize: (UnsafeMutablePointer<Handle>) -> Int32
  ) throws(UVError) -> UnsafeMutablePointer<Handle> {
    let handle = allocateUV(Handle.self)
    let rc = initialize(handle)
    if rc < 0 {
      deallocateUV(handle)
      throw UVError(rc)
    }
    own(handle)
    return handle
  }

  /// Takes an initialised `handle`: its `data` points to the object, and the loop keeps the
  /// object until the handle closed.
  final func own(_ handle: UnsafeMutablePointer<Handle>) {
    self.handle = handle
    asHandle(handle).pointee.data = Unmanaged.passUnretained(self).toOpaque()
    loop.register(self)
  }

  /// Begins closing the handle, without `willCloseHandle()` (for a `shutdown()` that does
  /// more). Idempotent.
  final func closeHandle() {
    guard let handle, uv_is_closing(asHandle(handle)) == 0 else { return }
    uv_close(asHandle(handle), closeHandleCallback)
  }
}

extension LoopHandle: LoopResource, ClosableHandleOwner {
  /// The close callback ran: free the handle, `didCloseHandle()`, unregister.
  final func handleDidClose(_ raw: UnsafeMutablePointer<uv_handle_t>) {
    deallocateUV(raw)
    handle = nil
    didCloseHandle()
    loop.unregister(self)
  }
}

/// Closes a handle that no object owns and frees its memory once libuv is done with it.
func discardHandle<T>(_ handle: UnsafeMutablePointer<T>) {
  let raw = asHandle(handle)
  raw.pointee.data = nil
  uv_close(raw) { deallocateUV(UnsafeMutableRawPointer($0!)) }
}
