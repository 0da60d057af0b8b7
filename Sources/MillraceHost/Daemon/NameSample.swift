/// A count of names with the first few of them kept, for messages about many machines that
/// stay one line long however many there are ("3 machines: a, b, c", "1000000 machines: a,
/// b, c, d, e, …").
public struct NameSample: Hashable, Sendable, CustomStringConvertible {
  /// How many names were added.
  public private(set) var count = 0
  /// The first names added, at most `kept`.
  public private(set) var first: [String] = []
  /// How many names are kept for the message.
  public static let kept = 5

  /// An empty sample.
  public init() {}

  /// Counts `name`, keeping it if fewer than `kept` are kept and it is not the last one kept
  /// (so that a machine counted once per timer is named once).
  public mutating func add(_ name: String) {
    count += 1
    if first.count < Self.kept && first.last != name { first.append(name) }
  }

  /// Counts `more` names without keeping any (once the first few are kept, the rest need
  /// not be made).
  public mutating func count(_ more: Int) {
    count += more
  }

  /// `"<count> machine(s): a, b, c"`, with `…` when names were left out.
  public var description: String {
    let more = count > first.count ? ", …" : ""
    return "\(count) machine\(count == 1 ? "" : "s"): \(first.joined(separator: ", "))\(more)"
  }
}
