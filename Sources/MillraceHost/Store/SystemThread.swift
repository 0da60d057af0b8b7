#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Threads of the daemon's own, started with `pthread_create`: the checkpoint worker's
/// (joined when the store stops) and the heap release's (detached, ending when it is done).
enum SystemThread {
  /// Starts `body` on a new thread; returns it, or nil (`body` not run) when the system
  /// cannot start one. A `detached` thread cannot be joined, and its resources go when it
  /// ends; otherwise the caller must `pthread_join` the thread returned.
  static func start(detached: Bool, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    if detached {
      pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    }
    var thread = pthread_t()
    let code = pthread_create(
      &thread, &attributes,
      { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    guard code == 0 else {
      Unmanaged<Body>.fromOpaque(context).release()
      return nil
    }
    return thread
  }

  /// A thread's body, on its way to the thread.
  private final class Body: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
      self.run = run
    }
  }
}
