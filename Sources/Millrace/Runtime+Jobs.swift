// Jobs: `run` effects handed to the driver's executor, and their completions.

extension Runtime {
  /// Hands a finished job back; its results are queued to its machine unless the effect was
  /// cancelled or the machine removed meanwhile. Call on the runtime's thread.
  public func complete(_ job: PendingJob) {
    guard _registry.liveRecord(job._machine) != nil else { return }
    perform(.complete(job), on: job._machine.index)
  }

  /// Makes `executor` run every job a `run` effect starts from now on: how a driver
  /// (`ManualDriver`, MillraceUV's `RuntimeLoop`) takes the runtime's jobs.
  ///
  /// - Precondition: no executor is installed. A runtime has one driver: a second one would
  ///   take the first one's jobs, which would then never complete where it waits for them.
  public func installJobExecutor(_ executor: @escaping (PendingJob) -> Void) {
    precondition(
      jobExecutor == nil,
      "the runtime already has a job executor: one driver per runtime (remove the other's first)")
    jobExecutor = executor
  }

  /// Removes the installed executor: jobs then execute inline, as they start.
  public func removeJobExecutor() {
    jobExecutor = nil
  }

  /// Hands `job` to the executor, or, without one, executes and completes it now.
  @usableFromInline
  func _submit(_ job: PendingJob) {
    if let jobExecutor {
      jobExecutor(job)
    } else {
      job.execute()
      complete(job)
    }
  }
}
