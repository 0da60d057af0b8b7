/// Who is answered when an input posted with `MachineHost.send` has been processed.
///
/// The host calls `sendFinished` exactly once per accepted send, on the loop thread, and keeps
/// the requester alive until then. A send resolved in place (no machine had an input queued)
/// is answered before `MachineHost.send` returns.
public protocol SendRequester: AnyObject {
  /// The send filed with `ticket` is finished.
  func sendFinished(ticket: UInt64, _ outcome: SendOutcome)

  /// The send filed with `ticket`, just finished (`sendFinished`), was handled, but an effect
  /// of its transition was dropped for lack of room (`failure`, code `overflow`): its answer
  /// must say so instead. Called at most once per failure, on the loop thread, before anything
  /// else is answered. Returns whether the answer was changed; when not, the host logs the
  /// failure instead. By default it is not changed.
  func sendOverflowed(ticket: UInt64, _ failure: HostFailure) -> Bool
}

extension SendRequester {
  /// Leaves the answer as it is (the host logs the failure).
  public func sendOverflowed(ticket: UInt64, _ failure: HostFailure) -> Bool { false }
}

/// How an accepted send ended.
public enum SendOutcome: Hashable, Sendable {
  /// The input was handled: `from` → `to`.
  case moved(from: String, to: String)
  /// No transition exists for `input` in `state`; nothing changed.
  case rejected(input: String, state: String)
  /// The machine was removed (killed, or replaced by a reload) before its input was processed.
  case machineRemoved(String)
}

/// What the end of a turn did (`MachineHost.finishTurn()`).
public struct TurnOutcome: Sendable {
  /// Nil when the turn's changes are committed (or nothing changed, or there is no store);
  /// otherwise why the acknowledgments held for them must become this error.
  public var refusal: HostFailure?
  /// How many machines were killed in the turn (memory may be given back).
  public var removedMachines: Int
}
