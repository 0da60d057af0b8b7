import CLibUV

/// Runs closures on libuv's thread pool (`uv_queue_work`) and delivers each result on the loop
/// thread.
///
/// Guarantees:
/// - `work` runs on a pool thread; `completion` runs later on the loop thread, with the value
///   `work` returned (libuv orders the two, so the result needs no extra synchronisation).
/// - A cancelled job's completion is never called, even if the work already finished and its
///   completion is queued (cancellation wins). A job that had not started yet is also removed
///   from the pool's queue (`uv_cancel`); a running one finishes, and its result is discarded.
/// - `close()` (and `EventLoop.close()`) cancels every job in flight; `EventLoop.close()` waits
///   for running work to return, so a closure that never returns blocks shutdown.
public final class WorkPool: LoopResource {
  /// The loop completions are delivered on.
  public let loop: EventLoop
  private var inFlight: [ObjectIdentifier: WorkJob] = [:]
  private var closed = false

  /// Creates a pool front-end on `loop`. The threads are libuv's shared pool (size set by the
  /// `UV_THREADPOOL_SIZE` environment variable, default 4).
  public init(loop: EventLoop) {
    loop.checkUsable()
    self.loop = loop
    loop.register(self)
  }

  /// Number of jobs submitted and not yet completed or cancelled.
  public var pendingCount: Int { inFlight.count }

  /// Queues `work` on the thread pool; `completion` receives its result on the loop thread.
  /// Returns the job (to cancel it), or throws when the pool is closed or libuv refuses the job.
  @discardableResult
  public func submit<Result: Sendable>(
    _ work: @escaping @Sendable () -> Result,
    completion: @escaping (Result) -> Void
  ) throws(UVError) -> WorkJob {
    loop.assertInLoop()
    guard !closed else { throw .closed }
    let cell = ResultCell<Result>()
    let job = WorkJob(
      pool: self,
      work: { cell.value = work() },
      completion: {
        if let value = cell.value.take() { completion(value) }
      })
    let request = job.request
    request.pointee.data = Unmanaged.passRetained(job).toOpaque()
    let rc = uv_queue_work(
      loop.raw, request,
      { request in
        let job = Unmanaged<WorkJob>.fromOpaque(request!.pointee.data!).takeUnretainedValue()
        job.work()
      },
      { request, status in
        let job = Unmanaged<WorkJob>.fromOpaque(request!.pointee.data!).takeRetainedValue()
        job.finish(status: status)
      })
    if rc < 0 {
      Unmanaged.passUnretained(job).release()
      job.discard()
      throw UVError(rc)
    }
    inFlight[ObjectIdentifier(job)] = job
    return job
  }

  /// Cancels every job in flight and refuses new ones. Idempotent.
  public func close() {
    loop.assertInLoop()
    shutdown()
  }

  func shutdown() {
    guard !closed else { return }
    closed = true
    for job in Array(inFlight.values) { job.cancel() }
    loop.unregister(self)
  }

  func forget(_ job: WorkJob) {
    inFlight[ObjectIdentifier(job)] = nil
  }
}

/// One job submitted to a `WorkPool`. Use it on the loop thread only.
///
/// The job object is kept alive by the pool until its completion ran or was skipped; dropping
/// your reference does not cancel it.
public final class WorkJob {
  /// Where a job is in its life.
  public enum State: Sendable, Equatable {
    /// Queued or running on the pool.
    case pending
    /// The completion ran.
    case completed
    /// Cancelled before its completion ran; the completion will never run.
    case cancelled
  }

  private weak var pool: WorkPool?
  /// Immutable and `@Sendable`: the only part of the job a pool thread touches.
  let work: @Sendable () -> Void
  private var completion: (() -> Void)?
  let request: UnsafeMutablePointer<uv_work_t>
  /// The job's current state.
  public private(set) var state: State = .pending

  init(pool: WorkPool, work: @escaping @Sendable () -> Void, completion: @escaping () -> Void) {
    self.pool = pool
    self.work = work
    self.completion = completion
    self.request = allocateUV(uv_work_t.self)
  }

  deinit {
    deallocateUV(request)
  }

  /// Whether `cancel()` was called (or the pool closed) before the completion ran.
  public var isCancelled: Bool { state == .cancelled }

  /// Cancels the job: its completion will not run. If the work has not started, it is removed
  /// from the pool's queue. No effect once the completion ran.
  public func cancel() {
    guard state == .pending else { return }
    state = .cancelled
    completion = nil
    // Fails with EBUSY when the work is already running or done; the flag above suffices then.
    _ = uv_cancel(UnsafeMutableRawPointer(request).assumingMemoryBound(to: uv_req_t.self))
  }

  func finish(status: Int32) {
    pool?.forget(self)
    guard state == .pending else { return }
    if status < 0 {
      // Only UV_ECANCELED is possible here, and only through cancel(), handled above.
      state = .cancelled
      completion = nil
      return
    }
    state = .completed
    let body = completion
    completion = nil
    body?()
  }

  func discard() {
    state = .cancelled
    completion = nil
  }
}

/// Internal: carries one result from a pool thread to the loop thread. libuv's work queue
/// orders the write (in `work`) before the read (in the completion), which makes the unchecked
/// `Sendable` sound.
final class ResultCell<Value>: @unchecked Sendable {
  var value: Value?
}
