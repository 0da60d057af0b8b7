/// Drives a runtime by hand: time moves only when told, so every timing behaviour is testable
/// without sleeping (like Harvest's TestScheduler or NIO's EmbeddedEventLoop). Also the
/// simplest loop for bare-metal hosts that step the runtime from their own clock.
///
/// Jobs started by `run` effects are held until `runJobs()` executes and completes them.
public final class ManualDriver {
  /// The driven runtime.
  public let runtime: Runtime
  /// Holds started jobs; shared with the runtime's executor without a reference cycle.
  final class JobList {
    var jobs: [PendingJob] = []
  }
  let started = JobList()

  /// Installs the driver's job executor on `runtime`, until the driver goes.
  ///
  /// - Precondition: `runtime` has no job executor (no other driver).
  public init(runtime: Runtime) {
    self.runtime = runtime
    let started = self.started
    runtime.installJobExecutor { job in started.jobs.append(job) }
  }

  deinit {
    runtime.removeJobExecutor()
  }

  /// Jobs started and not yet run, oldest first.
  public var pendingJobs: [PendingJob] { started.jobs }

  /// The runtime's current time.
  public var now: Instant { runtime.now }

  /// Resolves queued inputs until none are left at the current time.
  public func runUntilIdle() {
    while runtime.hasPendingInputs { runtime.dispatch() }
  }

  /// Moves time forward by `span`, stopping at every timer deadline on the way to fire it and
  /// run the machines until idle, as a real loop would.
  public func advance(by span: TimeSpan) {
    advance(to: runtime.now.advanced(by: span))
  }

  /// Moves time forward to `target` the same way (never backward).
  public func advance(to target: Instant) {
    runUntilIdle()
    while let deadline = runtime.nextDeadline, deadline <= target {
      runtime.advance(to: deadline)
      runUntilIdle()
    }
    runtime.advance(to: target)
    runUntilIdle()
  }

  /// Executes every pending job on this thread, completes it, and runs until idle.
  public func runJobs() {
    while !started.jobs.isEmpty {
      let job = started.jobs.removeFirst()
      job.execute()
      runtime.complete(job)
    }
    runUntilIdle()
  }
}
