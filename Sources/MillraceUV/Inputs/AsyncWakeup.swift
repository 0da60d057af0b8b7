import CLibUV

/// Internal: one `uv_async_t` whose callback runs `onWake` on the loop thread.
///
/// `uv_async_send` on the handle may be called from any thread while the handle is open; the
/// owner (`Inbox`) guarantees that no thread sends once `shutdown()` began, via `onShutdown`,
/// which runs before `uv_close`.
final class AsyncWakeup: LoopHandle<uv_async_t> {
  var onWake: (() -> Void)?
  var onShutdown: (() -> Void)?

  init(loop: EventLoop) throws(UVError) {
    super.init(on: loop)
    try adopt { handle in
      uv_async_init(loop.raw, handle) { raw in
        withOwner(of: asHandle(raw!), as: AsyncWakeup.self) { $0.onWake?() }
      }
    }
  }

  override func willCloseHandle() {
    let last = onShutdown
    onShutdown = nil
    last?()
    onWake = nil
  }
}
