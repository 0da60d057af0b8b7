/// A started `run` effect as the driver sees it: something to execute off the loop thread
/// and hand back to `Runtime.complete(_:)` on the loop thread.
///
/// Thread rules: `execute()` is called at most once, on any thread; `complete` is called on
/// the runtime's thread after `execute()` returned. A job whose effect was cancelled (or whose
/// machine was removed) may still be executed; its results are discarded on completion.
public class PendingJob: @unchecked Sendable {
  @usableFromInline
  let _machine: MachineID
  @usableFromInline
  let _slot: UInt32
  @usableFromInline
  let _generation: UInt32

  @usableFromInline
  init(machine: MachineID, slot: UInt32, generation: UInt32) {
    self._machine = machine
    self._slot = slot
    self._generation = generation
  }

  /// Runs the job's work and keeps its results until completion.
  public func execute() {}
}

/// The typed job behind a `PendingJob`.
@usableFromInline
final class _TypedPendingJob<Input>: PendingJob, @unchecked Sendable {
  @usableFromInline
  let job: Job<Input>
  @usableFromInline
  var results: [Input] = []

  @usableFromInline
  init(job: Job<Input>, machine: MachineID, slot: UInt32, generation: UInt32) {
    self.job = job
    super.init(machine: machine, slot: slot, generation: generation)
  }

  @usableFromInline
  override func execute() {
    results = job._work()
  }
}
