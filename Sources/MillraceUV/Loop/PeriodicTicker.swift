import CLibUV

/// A periodic callback on the loop thread for housekeeping (a store's checks, once a second)
/// whose ticks come from a kernel timer the loop polls (Linux: a `timerfd` watched by a
/// `uv_poll_t`), not from the loop's timer list.
///
/// Why: while any `LoopTimer` is armed, every wait of the loop for I/O carries a timeout, and
/// on Linux a wait with a timeout arms a high-resolution timer in the kernel each time it
/// sleeps, which a virtual machine pays for at every request of a one-client round trip (1.4 µs
/// on this project's VMs, `Bench/README.md`). A ticker arms its kernel timer once; the loop's
/// waits stay without a timeout.
///
/// Guarantees:
/// - `handler` runs on the loop thread about every `interval`, the first time about `interval`
///   after `init`, never earlier; ticks missed while the loop was busy come as one call.
/// - Where no kernel timer can be had (not Linux, or `timerfd_create` failed: out of
///   descriptors), it ticks from a repeating `LoopTimer` instead, with the same guarantees;
///   `isKernelTimed` says which.
/// - The ticker stays alive while its loop does, whether or not the caller keeps a reference;
///   `close()` (or `EventLoop.close()`) stops it and releases `handler` and its descriptor.
///   After `close()` the handler is never called again. Loop thread only.
public final class PeriodicTicker {
  /// What ticks: the polled kernel timer, or the fallback timer.
  private let source: any TickSource

  /// Starts ticking every `interval` (at least a millisecond).
  public convenience init(loop: EventLoop, interval: Duration, handler: @escaping () -> Void) {
    self.init(loop: loop, interval: interval, kernelTimed: true, handler: handler)
  }

  /// Starts ticking every `interval`: from a kernel timer when `kernelTimed` and one can be
  /// had, else from a `LoopTimer` (what tests of the fallback ask for).
  init(loop: EventLoop, interval: Duration, kernelTimed: Bool, handler: @escaping () -> Void) {
    let milliseconds = max(1, LoopTimer.milliseconds(interval))
    if kernelTimed,
      let polled = PolledTimerDescriptor(loop: loop, milliseconds: milliseconds, handler)
    {
      source = polled
    } else {
      let timer = LoopTimer(loop: loop) { _ in handler() }
      // The loop's millisecond clock lags the high-resolution one by up to a millisecond: one
      // more keeps the first tick, and so every later one, from coming early by the latter.
      timer.start(afterMilliseconds: milliseconds + 1, repeatMilliseconds: milliseconds)
      source = timer
    }
  }

  /// Whether the ticks come from a kernel timer (else from a `LoopTimer`, which gives the
  /// loop's waits a timeout).
  public var isKernelTimed: Bool { source is PolledTimerDescriptor }

  /// Whether the ticker does not keep `EventLoop.run()` from returning (`uv_unref`).
  public var isUnreferenced: Bool {
    get { source.isUnreferenced }
    set { source.isUnreferenced = newValue }
  }

  /// Stops ticking and releases the handler. Idempotent.
  public func close() { source.close() }
}

/// The handles a `PeriodicTicker` ticks from.
private protocol TickSource: AnyObject {
  var isUnreferenced: Bool { get set }
  func close()
}

extension LoopTimer: TickSource {}

/// A `timerfd` that expires every period, polled for readability on the loop.
private final class PolledTimerDescriptor: LoopHandle<uv_poll_t>, TickSource {
  private var descriptor: Int32
  private var handler: (() -> Void)?

  /// Nil when no kernel timer can be set up (then nothing is left open).
  init?(loop: EventLoop, milliseconds: UInt64, _ handler: @escaping () -> Void) {
    guard let descriptor = KernelTimer.open(periodMilliseconds: milliseconds) else { return nil }
    self.descriptor = descriptor
    self.handler = handler
    super.init(on: loop)
    do {
      let handle = try adopt { uv_poll_init(loop.raw, $0, descriptor) }
      let started = uv_poll_start(handle, Int32(UV_READABLE.rawValue)) { raw, status, _ in
        withOwner(of: asHandle(raw!), as: PolledTimerDescriptor.self) { $0.tick(status) }
      }
      guard started == 0 else {
        shutdown()
        return nil
      }
    } catch {
      KernelTimer.close(descriptor)
      self.descriptor = -1
      return nil
    }
  }

  private func tick(_ status: Int32) {
    // Reading takes the expirations counted since the last read (however many: one call).
    guard status == 0, KernelTimer.takeExpirations(descriptor) > 0 else { return }
    handler?()
  }

  override func willCloseHandle() {
    handler = nil
  }

  override func didCloseHandle() {
    // Closed only once libuv no longer polls it.
    if descriptor >= 0 { KernelTimer.close(descriptor) }
    descriptor = -1
  }
}
