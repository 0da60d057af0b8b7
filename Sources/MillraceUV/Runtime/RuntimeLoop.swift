import CLibUV
import Millrace

/// Drives a `Runtime` from an `EventLoop` (DESIGN §3).
///
/// Guarantees:
/// - Time: the runtime sees the loop's monotonic clock (`uv_hrtime`), reading `startInstant`
///   when the `RuntimeLoop` is created. One `uv_timer_t` is armed at the runtime's next
///   deadline, never fires before it by that clock, and is re-armed whenever the deadline
///   changes or the timer fired: a due timer fires at its deadline on an idle loop, with no
///   other I/O to wake it.
/// - Before every poll (a `uv_prepare_t`), the timer is re-armed if the runtime's next
///   deadline moved and what is queued keeps the poll from blocking, so timers armed or inputs
///   posted outside a loop callback (a restore before `EventLoop.run()`) are not left waiting
///   for the next I/O.
/// - Dispatch: inputs posted from any callback (I/O, signals, the inbox, job completions) are
///   dispatched after the loop's poll phase of the same iteration (a `uv_check_t`), in
///   batches of at most `batchSize` inputs, or earlier where a callback asks for it
///   (`dispatchPosted()`). When a batch leaves inputs queued, the next poll does not block, so
///   sockets are polled between batches and never starved.
/// - `EventLoop.execute` tasks run in the idle phase, before the poll: when some ran, the
///   loop pumps right before polling too (a `uv_prepare_t`), so what they posted or left for
///   the turn end (a reply held until the commit) does not wait for the next I/O.
/// - Turn end: `onTurnEnd` runs after every pump, so a host can commit what the turn changed
///   and only then write its replies.
/// - Jobs: `run` effects execute on libuv's thread pool (`uv_queue_work`); completions come back
///   on the loop thread, where the runtime discards those of cancelled effects. The driver
///   installs the runtime's job executor (`Runtime.installJobExecutor`): a runtime that
///   already has a driver stops the program. After `close()` the runtime drops the jobs
///   its machines start.
/// - Use on the loop thread only: the driver confines the runtime to it
///   (`Runtime.confine(to:)`), so that debug builds stop a use of the runtime, its handles or
///   its observations from another thread. `close()` (or `EventLoop.close()`) closes its
///   handles.
public final class RuntimeLoop: LoopResource, ClosableHandleOwner {
  /// The loop.
  public let loop: EventLoop
  /// The driven runtime.
  public let runtime: Runtime
  /// The most machine turns one pump dispatches before letting the loop poll again.
  public var batchSize: Int {
    get { storedBatchSize }
    set { storedBatchSize = newValue }
  }
  // Read by every pump: no dynamic exclusivity checks (see `Connection.handler`).
  @exclusivity(unchecked) private var storedBatchSize: Int
  /// What `now` reads when the `RuntimeLoop` is created: 2^62 ns (about 146 years), so that
  /// instants long before start-up are representable (a restored periodic timer's grid).
  public static let startInstant = Instant(nanoseconds: 1 << 62)
  /// Runs after every pump (after dispatch), on the loop thread.
  @exclusivity(unchecked) public var onTurnEnd: (() -> Void)?
  /// Run after `onTurnEnd` after every pump, for MillraceUV's own objects (`RemoteMachine`),
  /// apart from it so that a host assigning `onTurnEnd` does not drop them; a hook that
  /// answers false is done and removed.
  @exclusivity(unchecked) var turnEndHooks: [() -> Bool] = []

  // Read on every pump (every loop iteration), on the loop thread only: no dynamic
  // exclusivity checks.
  @exclusivity(unchecked) private var check: UnsafeMutablePointer<uv_check_t>?
  @exclusivity(unchecked) private var idle: UnsafeMutablePointer<uv_idle_t>?
  private var prepare: UnsafeMutablePointer<uv_prepare_t>?
  private var openHandles = 3
  private let timer: LoopTimer
  private let pool: WorkPool
  /// `uv_hrtime()` minus `now`.
  private let origin: UInt64
  @exclusivity(unchecked) private var armedDeadline: Instant?
  @exclusivity(unchecked) private var idling = false
  @exclusivity(unchecked) private var pumpedAfterBatch: UInt64 = 0

  /// Attaches `runtime` to `loop`; takes over the runtime's job executor.
  public init(loop: EventLoop, runtime: Runtime, batchSize: Int = 256) {
    loop.assertInLoop()
    self.loop = loop
    self.runtime = runtime
    storedBatchSize = max(1, batchSize)
    self.origin = uv_hrtime() &- Self.startInstant.nanoseconds
    self.pool = WorkPool(loop: loop)
    var timerFired: (() -> Void)?
    self.timer = LoopTimer(loop: loop) { _ in timerFired?() }
    let check = allocateUV(uv_check_t.self)
    let idle = allocateUV(uv_idle_t.self)
    let prepare = allocateUV(uv_prepare_t.self)
    uv_check_init(loop.raw, check)
    uv_idle_init(loop.raw, idle)
    uv_prepare_init(loop.raw, prepare)
    self.check = check
    self.idle = idle
    self.prepare = prepare
    check.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    idle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    prepare.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    loop.register(self)
    // A timer an input read after a sleep starts counts from then, not from the turn before
    // the sleep: the loop advances the runtime's time only at the end of its turns.
    let origin = self.origin
    runtime.presentTime = { Self.instant(since: origin) }
    timerFired = { [unowned self] in
      // A one-shot timer that fired is no longer armed, whatever the deadline.
      self.armedDeadline = nil
      self.pump()
    }
    uv_check_start(check) { handle in
      withOwner(of: asHandle(handle!), as: RuntimeLoop.self) { $0.pump() }
    }
    // The check handle alone must not keep the loop alive.
    uv_unref(asHandle(check))
    // Right before the poll: what idle-phase tasks posted, or left for the turn end, must not
    // wait for the next I/O (the poll could block indefinitely).
    uv_prepare_start(prepare) { handle in
      withOwner(of: asHandle(handle!), as: RuntimeLoop.self) { driver in
        guard driver.loop.deferredBatches != driver.pumpedAfterBatch else {
          driver.keepPolling(driver.runtime.hasPendingInputs)
          driver.rearm()
          return
        }
        driver.pumpedAfterBatch = driver.loop.deferredBatches
        driver.pump()
      }
    }
    uv_unref(asHandle(prepare))
    runtime.confine { [weak loop] in loop?.inLoopThread ?? true }
    let pool = self.pool
    runtime.installJobExecutor { [unowned self] job in
      do {
        try pool.submit({ job.execute() }) { _ in
          self.runtime.complete(job)
          self.pump()
        }
      } catch {
        // The pool is closed (shutting down): the job's inputs are dropped with the runtime.
      }
    }
  }

  /// The runtime's clock: `startInstant` plus the nanoseconds since this object was created.
  public var now: Instant { Self.instant(since: origin) }

  /// The clock's reading, counted from `origin` (nanoseconds of `uv_hrtime`).
  private static func instant(since origin: UInt64) -> Instant {
    Instant(nanoseconds: uv_hrtime() &- origin)
  }

  /// Fires due timers, dispatches one batch, runs the turn-end hook and re-arms the timer.
  /// Called by the loop; call it yourself after posting from outside a loop callback.
  public func pump() {
    guard check != nil else { return }
    // Replies of the turn go out once per connection, after the turn end (its commit).
    loop.batchWrites {
      runtime.advance(to: now)
      // Often nothing: the callbacks' own `dispatchPosted` took it.
      if runtime.hasPendingInputs { runtime.dispatch(limit: batchSize) }
      onTurnEnd?()
      if !turnEndHooks.isEmpty { turnEndHooks.removeAll { !$0() } }
    }
    keepPolling(runtime.hasPendingInputs)
    rearm()
  }

  /// Dispatches one batch of the inputs posted so far, now, without ending the turn:
  /// `onTurnEnd` still runs once, at the iteration's pump, for everything dispatched in it.
  /// For a callback that posted many inputs (a read of pipelined requests), so that they are
  /// resolved while what posting them touched is still in the processor's caches, not after
  /// every other callback of the iteration. Writes made meanwhile are batched
  /// (`EventLoop.batchWrites`). Does nothing when nothing is queued, during a dispatch, or
  /// once the driver is closed.
  public func dispatchPosted() {
    guard let check, uv_is_closing(asHandle(check)) == 0, runtime.hasPendingInputs else {
      return
    }
    loop.batchWrites { runtime.dispatch(limit: batchSize) }
  }

  private func keepPolling(_ busy: Bool) {
    guard let idle, busy != idling else { return }
    idling = busy
    if busy {
      uv_idle_start(idle) { _ in }
    } else {
      uv_idle_stop(idle)
    }
  }

  private func rearm() {
    let deadline = runtime.nextDeadline
    guard deadline != armedDeadline else { return }
    armedDeadline = deadline
    guard let deadline else {
      timer.stop()
      return
    }
    timer.start(at: deadline.nanoseconds &+ origin)
  }

  /// Closes the handles and the job pool. Idempotent.
  public func close() {
    loop.assertInLoop()
    shutdown()
  }

  func shutdown() {
    // Jobs started while shutting down are dropped with the runtime, not run inline.
    runtime.removeJobExecutor()
    runtime.installJobExecutor { _ in }
    onTurnEnd = nil
    turnEndHooks.removeAll()
    runtime.presentTime = nil
    timer.close()
    pool.close()
    let handles = [
      check.map { asHandle($0) }, idle.map { asHandle($0) }, prepare.map { asHandle($0) },
    ]
    for handle in handles {
      guard let handle, uv_is_closing(handle) == 0 else { continue }
      uv_close(handle, closeHandleCallback)
    }
  }

  func handleDidClose(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    if let check, asHandle(check) == handle { self.check = nil }
    if let idle, asHandle(idle) == handle { self.idle = nil }
    if let prepare, asHandle(prepare) == handle { self.prepare = nil }
    deallocateUV(handle)
    openHandles -= 1
    if openHandles == 0 { loop.unregister(self) }
  }
}
