import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A thread of the store's own that runs one job at a time (a checkpoint: journal records into
/// SQLite, and SQLite's own log merge), so that the loop thread never waits for one.
///
/// Guarantees: `submit` hands a job over and returns at once; the job runs on the worker's
/// thread, after everything the submitting thread did before `submit` (the lock orders them),
/// and its outcome is seen by the loop thread (`isFinished`, `takeOutcome`, `wait`) only after
/// everything the job did. One job at a time: submit only when none is in flight. The thread
/// starts with the first job and ends at `stop()` (which the owner must call).
///
/// The lock is a `pthread_mutex_t`, as `Inbox`'s: ThreadSanitizer sees it.
final class CheckpointWorker: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private let changed: UnsafeMutablePointer<pthread_cond_t>
  /// Set by the worker when a job finished, cleared when its outcome is taken: read by the
  /// loop on every commit while a job is in flight, without the lock.
  private let finished = Atomic<Bool>(false)
  private let abandoning = Atomic<Bool>(false)
  // Guarded by `lock`.
  private var job: (() -> StoreError?)?
  private var running = false
  private var outcome: StoreError?
  private var stopping = false
  private var thread: pthread_t?

  /// How much nicer than the thread that starts it the worker runs.
  static let niceIncrement: Int32 = 10

  init() {
    lock = .allocate(capacity: 1)
    changed = .allocate(capacity: 1)
    precondition(pthread_mutex_init(lock, nil) == 0, "pthread_mutex_init failed")
    // Timed waits (`wait(upTo:)`) count on the monotonic clock: a step of the wall clock
    // neither lengthens nor cuts them.
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    precondition(pthread_cond_init(changed, &attributes) == 0, "pthread_cond_init failed")
    pthread_condattr_destroy(&attributes)
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(lock)
    changed.deallocate()
    lock.deallocate()
  }

  /// Whether the job in flight finished (its outcome not yet taken); without the lock.
  var isFinished: Bool { finished.load(ordering: .acquiring) }

  /// Whether `abandon()` was called since the job in flight was submitted: for the job to ask
  /// now and then, and stop early.
  var isAbandoning: Bool { abandoning.load(ordering: .relaxed) }

  /// Asks the job in flight to stop early (it decides when, through `isAbandoning`); its
  /// outcome is taken as any other.
  func abandon() { abandoning.store(true, ordering: .relaxed) }

  /// Starts `job` on the worker's thread (starting the thread with the first job). No job may
  /// be in flight. Returns false, running nothing, when the thread cannot be started.
  func submit(_ job: @escaping () -> StoreError?) -> Bool {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    precondition(self.job == nil && !running && !finished.load(ordering: .relaxed))
    if thread == nil {
      guard let started = SystemThread.start(detached: false, { self.work() }) else {
        return false
      }
      thread = started
    }
    self.job = job
    abandoning.store(false, ordering: .relaxed)
    running = true
    pthread_cond_broadcast(changed)
    return true
  }

  /// The outcome of the finished job (nil: it succeeded), taken once.
  func takeOutcome() -> StoreError? {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    let taken = outcome
    outcome = nil
    finished.store(false, ordering: .relaxed)
    return taken
  }

  /// Waits until the job in flight, if any, finished (its outcome is then `takeOutcome()`'s).
  func wait() {
    pthread_mutex_lock(lock)
    while running { pthread_cond_wait(changed, lock) }
    pthread_mutex_unlock(lock)
  }

  /// Waits until the job in flight, if any, finished, or `nanoseconds` passed (at least that
  /// long unless it finished first); returns whether no job is running.
  func wait(upTo nanoseconds: Int) -> Bool {
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    let end = deadline.tv_nsec + nanoseconds
    deadline.tv_sec += end / 1_000_000_000
    deadline.tv_nsec = end % 1_000_000_000
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while running, pthread_cond_timedwait(changed, lock, &deadline) == 0 {}
    return !running
  }

  /// Lets the job in flight finish, then ends the thread and waits for it. Idempotent.
  func stop() {
    pthread_mutex_lock(lock)
    stopping = true
    let thread = self.thread
    self.thread = nil
    pthread_cond_broadcast(changed)
    pthread_mutex_unlock(lock)
    if let thread { pthread_join(thread, nil) }
  }

  /// Makes the calling thread `niceIncrement` nicer (Linux: `PRIO_PROCESS` with id 0 is the
  /// calling thread alone).
  private static func lowerThisThreadsPriority() {
    #if canImport(Glibc)
      let thisThread = __priority_which_t(PRIO_PROCESS.rawValue)
    #else
      let thisThread = PRIO_PROCESS
    #endif
    errno = 0
    let nice = getpriority(thisThread, 0)
    if errno == 0 { setpriority(thisThread, 0, nice + niceIncrement) }
  }

  /// The thread's loop: a job at a time until `stop()`.
  private func work() {
    // SCHED_BATCH (3; glibc declares it only under _GNU_SOURCE): woken by `submit`, the worker
    // does not preempt the loop thread that woke it. And `niceIncrement` lower in priority:
    // where the two share a CPU, the worker gets a small share of it, unless the loop lends it
    // more (`MachineStore`'s lending, as the journal's backlog grows); against any other
    // process it still gets a share, never none. A loop thread that wakes while the worker
    // runs gets the CPU back at the worker's next yield point (`SharedCPU`), not a tick later.
    var batch = sched_param()
    pthread_setschedparam(pthread_self(), 3, &batch)
    Self.lowerThisThreadsPriority()
    pthread_mutex_lock(lock)
    while true {
      while job == nil && !stopping { pthread_cond_wait(changed, lock) }
      guard let job else { break }
      self.job = nil
      pthread_mutex_unlock(lock)
      let result = job()
      pthread_mutex_lock(lock)
      outcome = result
      running = false
      finished.store(true, ordering: .releasing)
      pthread_cond_broadcast(changed)
    }
    pthread_mutex_unlock(lock)
  }
}
