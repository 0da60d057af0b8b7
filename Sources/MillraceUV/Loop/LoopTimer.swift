import CLibUV

/// A one-shot or periodic timer (`uv_timer_t`) that calls a Swift closure on the loop thread.
///
/// Guarantees:
/// - Re-armable: `start` on a running timer restarts it with the new timeout; `stop()` disarms
///   it and keeps the handle for a later `start`.
/// - Never early by the loop clock: the loop time is refreshed (`uv_update_time`) when arming,
///   and sub-millisecond durations round up to the next millisecond. `start(at:)` is never
///   early by the high-resolution clock (`EventLoop.now`) either.
/// - The timer stays alive while its loop does (the loop owns it), whether or not the caller
///   keeps a reference; `close()` (or `EventLoop.close()`) releases it and its closure. After
///   `close()` the closure is never called again and `start` is ignored.
public final class LoopTimer: LoopHandle<uv_timer_t> {
  private var handler: ((LoopTimer) -> Void)?

  /// Creates a stopped timer; `handler` runs on the loop thread each time it fires.
  public init(loop: EventLoop, handler: @escaping (LoopTimer) -> Void) {
    self.handler = handler
    super.init(on: loop)
    let handle = allocateUV(uv_timer_t.self)
    uv_timer_init(loop.raw, handle)  // cannot fail
    own(handle)
  }

  /// Arms a one-shot timer that fires once after `delay`.
  public func start(after delay: Duration) {
    start(afterMilliseconds: Self.milliseconds(delay), repeatMilliseconds: 0)
  }

  /// Arms a timer that fires after `delay`, then every `interval` until stopped. Intervals are
  /// measured from each callback (libuv semantics), so a slow callback delays the next tick.
  public func start(after delay: Duration, repeat interval: Duration) {
    start(
      afterMilliseconds: Self.milliseconds(delay),
      repeatMilliseconds: max(1, Self.milliseconds(interval)))
  }

  /// Arms the timer in milliseconds; `repeatMilliseconds == 0` means one-shot.
  public func start(afterMilliseconds: UInt64, repeatMilliseconds: UInt64 = 0) {
    loop.assertInLoop()
    guard handle != nil else { return }
    uv_update_time(loop.raw)
    arm(afterMilliseconds: afterMilliseconds, repeatMilliseconds: repeatMilliseconds)
  }

  /// Arms a one-shot timer that fires in the first loop iteration whose clock has reached
  /// `instant`, a reading of `EventLoop.now` (`uv_hrtime`, nanoseconds): never before it, even
  /// when the loop wakes for something else a fraction of a millisecond earlier, and in the
  /// iteration that reaches it when nothing else wakes the loop. An instant already past fires
  /// in the next iteration.
  public func start(at instant: UInt64) {
    loop.assertInLoop()
    guard handle != nil else { return }
    uv_update_time(loop.raw)
    // libuv runs a timer once the loop's millisecond clock (the high-resolution clock rounded
    // down, or a coarser clock that lags it) reaches its due millisecond: due at the first
    // whole millisecond at or after `instant`, nothing fires early.
    let due = instant / 1_000_000 + (instant % 1_000_000 > 0 ? 1 : 0)
    let cached = uv_now(loop.raw)
    arm(afterMilliseconds: due > cached ? due - cached : 0, repeatMilliseconds: 0)
  }

  private func arm(afterMilliseconds: UInt64, repeatMilliseconds: UInt64) {
    guard let handle else { return }
    uv_timer_start(
      handle,
      { timer in
        withOwner(of: asHandle(timer!), as: LoopTimer.self) { $0.handler?($0) }
      }, afterMilliseconds, repeatMilliseconds)
  }

  /// Disarms the timer; a later `start` re-arms it.
  public func stop() {
    loop.assertInLoop()
    guard let handle else { return }
    uv_timer_stop(handle)
  }

  /// Whether the timer is armed.
  public var isActive: Bool {
    guard let handle else { return false }
    return uv_is_active(asHandle(handle)) != 0
  }

  override func willCloseHandle() {
    handler = nil
  }

  /// Whole milliseconds in `duration`, rounded up, never negative.
  static func milliseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 { return 0 }
    let perMillisecond: Int64 = 1_000_000_000_000_000
    let ms = attoseconds / perMillisecond + (attoseconds % perMillisecond > 0 ? 1 : 0)
    return UInt64(seconds) &* 1000 &+ UInt64(max(0, ms))
  }
}
