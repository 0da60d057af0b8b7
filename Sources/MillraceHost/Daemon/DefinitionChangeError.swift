/// Why new definitions were refused: machines (live or stored) need a kind, state, input or
/// queue the definitions no longer have, and no `migrate` maps it. One problem per kind and
/// missing name, each naming the machines that need it (the first few, and the count).
public struct DefinitionChangeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// One missing name and the machines that need it.
  public struct Problem: Hashable, Sendable, CustomStringConvertible {
    /// What the machines need.
    public enum Missing: Hashable, Sendable {
      /// The kind itself.
      case kind
      /// A state the machines are in.
      case state(String)
      /// The context the machines hold (their stored state, `leaf{var=value,...}`): a variable
      /// the kind no longer has, or a value its new type cannot hold.
      case context(String)
      /// An input a pending timer of the machines sends.
      case input(String)
      /// The queue (by index) a pending timer of the machines runs on; `count` is how many
      /// queues the kind has.
      case queue(UInt8, count: Int)
      /// The machines still had queued inputs after the dispatch before a move (a machine
      /// that keeps sending to itself).
      case queuedInputs
    }

    /// The kind.
    public var kind: String
    /// What is missing.
    public var missing: Missing
    /// The machines that need it.
    public var machines: NameSample

    /// One line: the kind, what it lacks, and the machines.
    public var description: String {
      let kind = self.kind.quoted
      switch missing {
      case .kind:
        return "kind \(kind) is gone; \(machines) of that kind"
      case .state(let state):
        return "kind \(kind) has no state \(state.quoted); \(machines) in that state"
      case .context(let state):
        return "kind \(kind) cannot hold the context of \(state.quoted) (a variable it no longer "
          + "has, or a value its type cannot hold); \(machines) with that context"
      case .input(let input):
        return "kind \(kind) has no input \(input.quoted); \(machines) with a pending timer that "
          + "sends it"
      case .queue(let queue, let count):
        return "kind \(kind) has no queue \(queue) (it has \(count)); \(machines) with a pending "
          + "timer on it"
      case .queuedInputs:
        return "kind \(kind): \(machines) still had queued inputs after the dispatch before the "
          + "move (reload again when they are idle)"
      }
    }
  }

  /// The problems, in the order they were met; never empty when thrown.
  public var problems: [Problem]
  /// What the user can do, in the words of where the definitions were loaded (reload or
  /// start).
  public var advice: String

  /// Wraps `problems`.
  public init(_ problems: [Problem], advice: String) {
    self.problems = problems
    self.advice = advice
  }

  /// The problems, one per line, then the advice.
  public var description: String {
    (problems.map(\.description) + [advice]).joined(separator: "\n")
  }
}
