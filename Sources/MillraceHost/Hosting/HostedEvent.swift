import Millrace

/// One event of a hosted machine, as text: a reply (tagged with the request that caused it)
/// or an output.
public enum HostedEvent: Hashable, Sendable {
  /// The input was handled: `from` → `to`; `final` when this reached a final state (`to` is
  /// final, `from` is not).
  case handled(input: String, from: String, to: String, final: Bool = false, tag: PostTag)
  /// No transition exists for the input in `state`.
  case rejected(input: String, state: String, tag: PostTag)
  /// The machine emitted an output.
  case emitted(String)

  /// The tag of the post that caused a reply (`.none` for outputs and internal inputs).
  public var tag: PostTag {
    switch self {
    case .handled(_, _, _, _, let tag), .rejected(_, _, let tag): return tag
    case .emitted: return .none
    }
  }

  /// The pub/sub message body of DESIGN §4.1: `<input> <from> <to>` (then ` final` when this
  /// reached a final state), `rejected <input> <state>`, or `emit <output>`.
  public var message: String {
    switch self {
    case .handled(let input, let from, let to, let final, _):
      return "\(input) \(from) \(to)" + (final ? " final" : "")
    case .rejected(let input, let state, _): return "rejected \(input) \(state)"
    case .emitted(let output): return "emit \(output)"
    }
  }
}
