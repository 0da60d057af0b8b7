import Millrace

/// What a hosted kind does at the two ends of a machine's life, as a statechart has them: the
/// input that runs the entry effects of the states a new machine starts in, and which states
/// are final. A kind without nested states or entry effects (every kind compiled in Swift,
/// unless it says otherwise) has neither.
public struct KindLifecycle<M: Machine> {
  /// The input to post to a machine just spawned in a state, or nil when nothing is to run.
  public var startInput: (M.State) -> M.Input?
  /// Whether a state is final: reaching it (from a state that is not) is flagged in the event
  /// subscribers receive.
  public var isFinal: (M.State) -> Bool

  /// A lifecycle from its two functions; by default nothing runs at spawn and no state is
  /// final.
  public init(
    startInput: @escaping (M.State) -> M.Input? = { _ in nil },
    isFinal: @escaping (M.State) -> Bool = { _ in false }
  ) {
    self.startInput = startInput
    self.isFinal = isFinal
  }
}
