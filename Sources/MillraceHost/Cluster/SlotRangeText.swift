/// Slots as the cluster map file and `CLUSTER NODES` write them: a single slot (`5`) or an
/// inclusive range (`0-5460`).
enum SlotRangeText {
  /// Why a word is not a slot or a range of slots.
  enum Failure: Error, Equatable {
    /// Not digits, or not `<first>-<last>`.
    case malformed
    /// A slot outside `0..<HashSlot.count` (clamped to `Int.max` when longer).
    case outOfRange(Int)
    /// The first slot is after the last.
    case reversed
  }

  /// The slots `word` names.
  static func parse(_ word: some StringProtocol) throws(Failure) -> ClosedRange<Int> {
    let parts = word.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    let first = try slot(parts[0])
    guard parts.count == 2 else { return first...first }
    let last = try slot(parts[1])
    guard first <= last else { throw .reversed }
    return first...last
  }

  /// `5` or `0-5460`.
  static func format(_ range: ClosedRange<Int>) -> String {
    range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound)-\(range.upperBound)"
  }

  /// A slot number: decimal digits only, in range.
  private static func slot(_ text: some StringProtocol) throws(Failure) -> Int {
    guard !text.isEmpty,
      text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else { throw .malformed }
    let value = Int(text) ?? Int.max
    guard value < HashSlot.count else { throw .outOfRange(value) }
    return value
  }
}
