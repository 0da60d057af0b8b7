// Embedded Swift has no threads to confine to: its programs run the runtime on one, and
// its builds do not assert.
#if !hasFeature(Embedded)
  extension Runtime {
    /// Confines the runtime, its handles, lookups and observations to one thread, and checks it
    /// in debug builds: from now on, a use on a thread where `isCurrentThread` answers false
    /// stops the program, instead of racing with the thread that drives the runtime.
    ///
    /// A driver that runs the runtime on a thread of its own calls this (MillraceUV's
    /// `RuntimeLoop` does, with its loop's thread). The check runs where a runtime is entered:
    /// posting, spawning, removing, dispatching, observing, wiring and cancelling an
    /// observation. Release builds do not check.
    public func confine(to isCurrentThread: @escaping () -> Bool) {
      _registry.threadCheck = isCurrentThread
    }

    /// Whether the caller may use the runtime now: the runtime is not confined to a thread,
    /// or the caller runs on that thread.
    public var isOnItsThread: Bool { _registry.isOnItsThread }
  }

#endif

extension _MachineRegistry {
  /// Whether the caller runs on the runtime's thread, or the runtime is not confined.
  @inlinable
  var isOnItsThread: Bool {
    #if hasFeature(Embedded)
      true
    #else
      threadCheck.map { $0() } ?? true
    #endif
  }

  /// Stops the program, in debug builds, when the caller is not on the runtime's thread.
  @inlinable
  @inline(__always)
  func assertOnItsThread() {
    assert(isOnItsThread, "a Millrace runtime used off the thread it is confined to")
  }
}
