/// The lines entered in a `repl` session, in memory only (nothing is written to disk), with
/// `!!` (the last line) and `!N` (line N of `history`) expansion.
struct LineHistory {
  /// The most lines kept; older ones are forgotten.
  static let capacity = 1000

  /// What a line expands to.
  enum Expansion: Equatable {
    /// The line is not a history reference.
    case none
    /// The line refers to this earlier line.
    case line(String)
    /// The line refers to a line that is not in the history.
    case missing
  }

  /// The lines, oldest first; numbered from `firstNumber`.
  private(set) var entries: [String] = []
  private var firstNumber = 1

  /// Records `line`, unless it repeats the previous one.
  mutating func add(_ line: String) {
    guard entries.last != line else { return }
    entries.append(line)
    if entries.count > Self.capacity {
      entries.removeFirst()
      firstNumber += 1
    }
  }

  /// Expands `!!` and `!N`.
  func expand(_ line: String) -> Expansion {
    guard line.hasPrefix("!") else { return .none }
    if line == "!!" { return entries.last.map(Expansion.line) ?? .missing }
    guard let number = Int(line.dropFirst()) else { return .none }
    let index = number - firstNumber
    return entries.indices.contains(index) ? .line(entries[index]) : .missing
  }

  /// The numbered lines, as the `history` command prints them.
  var listing: String {
    entries.enumerated().map { entry in
      let number = String(entry.offset + firstNumber)
      return String(repeating: " ", count: max(0, 5 - number.count)) + number + "  "
        + entry.element
    }.joined(separator: "\n")
  }
}
