import Logging
import Millrace

/// Overflow: an effect the runtime had to drop for lack of room (`Runtime.onDiagnostic`) is
/// never silent (DESIGN §1).
///
/// - When it comes from the transition of a `SEND` or `SPAWN` a client is waiting for, that
///   client's answer becomes the failure (`HostFailure.Code.overflow`, `-OVERFLOW` on the
///   wire), naming the machine and what was dropped: the change is made, the effect is not.
///   The runtime applies a step's effects after its observers saw its reply, so the answer is
///   changed where it waits (`SendRequester.sendOverflowed`), before it is written.
/// - Otherwise (the transition of a timer's or a job's input, or such an input itself finding
///   its queue full; no client waits) it is logged at `warning`, naming the machine: at most
///   one line a second, the next line counting the ones left out.
/// - A timer or effect slot that a restore finds full is not logged here: outside a step only
///   a restore starts effects, and its caller reports each timer it could not restore.
/// - Either way it is counted by cause (`overflowCounts`, `INFO`'s `overflow_*` fields).
extension MachineHost {
  /// The `SEND` or `SPAWN` the step being resolved answered: whose effects, applied after the
  /// answer, a drop reported meanwhile comes from. Set by `deliver` after the answer, cleared
  /// by the next reply of any step and at the turn's end. Its requester is the caller's,
  /// alive for the in-place step, or else held by `answeredWaiter` until then (a client gone
  /// meanwhile was held only by its waiting answer).
  struct AnsweredStep {
    unowned(unsafe) let requester: any SendRequester
    let ticket: UInt64
    let machine: MachineID
  }

  /// What was dropped, counted by cause.
  public struct OverflowCounts: Sendable, Equatable {
    /// Timers not started: the timer table was full (`--max-timers`).
    public var timers = 0
    /// Effects not started: no free effect slot (`--max-effects`).
    public var effects = 0
    /// Inputs of a timer, an effect or a job not queued: the machine's queue or the input
    /// pool was full (`--queue-capacity`, `--max-inputs`).
    public var inputs = 0
    /// Effects beyond the most one transition may record.
    public var recorded = 0
  }

  /// Installs the runtime's overflow handler (from `init`).
  func observeOverflow() {
    runtime.onDiagnostic = { [unowned(unsafe) self] diagnostic in self.dropped(diagnostic) }
  }

  /// One overflow: counted, then answered to the client whose `SEND` or `SPAWN` caused it, or
  /// logged.
  func dropped(_ diagnostic: Diagnostic) {
    let failure = HostFailure(.overflow, describe(diagnostic))
    switch diagnostic {
    case .timersFull: overflowCounts.timers += 1
    case .effectSlotsFull: overflowCounts.effects += 1
    case .inputQueueFull: overflowCounts.inputs += 1
    case .effectBufferFull(_, let dropped): overflowCounts.recorded += dropped
    }
    guard runtime.isDispatching else {
      if case .inputQueueFull = diagnostic { logOverflow(failure) }
      return
    }
    if let step = answeredStep, Self.step(of: step.machine, made: diagnostic),
      step.requester.sendOverflowed(ticket: step.ticket, failure)
    {
      return
    }
    logOverflow(failure)
  }

  /// Whether `diagnostic`, reported while a step of `machine` applies its effects, is one of
  /// them: an effect of the machine itself, or an input one of its effects sent. (Too many
  /// effects recorded is reported before the step's reply, so it is never the step's.)
  private static func step(of machine: MachineID, made diagnostic: Diagnostic) -> Bool {
    switch diagnostic {
    case .timersFull(let id), .effectSlotsFull(let id): return id == machine
    case .inputQueueFull(let id, let source): return source == .send || id == machine
    case .effectBufferFull: return false
    }
  }

  /// The failure's text: the machine, what was dropped, and the limit it met.
  private func describe(_ diagnostic: Diagnostic) -> String {
    func name(_ id: MachineID) -> String {
      directory.entry(of: id).map { "machine \($0.name)" } ?? "a machine since removed"
    }
    switch diagnostic {
    case .timersFull(let id):
      return "\(name(id)) made its transition, but a timer it started was dropped: every timer "
        + "slot is in use (--max-timers \(runtime.capacity.timers))"
    case .effectSlotsFull(let id):
      return "\(name(id)) made its transition, but an effect it started was dropped: no free "
        + "effect slot (--max-effects)"
    case .inputQueueFull(let id, let source):
      let from: String
      switch source {
      case .send: from = "an input sent to it by a transition"
      case .timer: from = "its timer's input"
      case .job: from = "its job's result"
      case .route: from = "an input routed to it"
      }
      return "\(name(id)): \(from) was dropped: its queue or the input pool is full "
        + "(--queue-capacity, --max-inputs)"
    case .effectBufferFull(let id, let dropped):
      return "\(name(id)): \(dropped) effects of one transition were dropped: a transition "
        + "records at most \(runtime.capacity.effectsPerResolution)"
    }
  }

  /// Logs an overflow no client was answered with: at most one line a second, the next one
  /// saying how many were left out meanwhile.
  private func logOverflow(_ failure: HostFailure) {
    let now = ContinuousClock.now
    if let last = lastOverflowLog, now - last < .seconds(1) {
      overflowsNotLogged += 1
      return
    }
    lastOverflowLog = now
    let left = overflowsNotLogged
    overflowsNotLogged = 0
    logger.warning(
      "overflow: \(failure.text)\(left > 0 ? " (and \(left) more in the last second, not logged)" : "")"
    )
  }
}
