extension RESPValue: CustomStringConvertible {
  /// How `redis-cli` prints the value on a terminal, roughly: strings bare, `(error) ...`,
  /// `(integer) n`, `(nil)`, `(double) x`, `(true)`, `(big number) n`; aggregates one element
  /// per line, numbered `1)` (sets `1~`, maps `1# key => value`), nested ones indented under
  /// their number, empty ones `(empty array)`, `(empty set)`, `(empty hash)`, `(empty push)`.
  public var description: String {
    switch self {
    case .simple(let text): return text
    case .error(let text): return "(error) \(text)"
    case .integer(let value): return "(integer) \(value)"
    case .bulk(let text): return text ?? "(nil)"
    case .array(nil), .null: return "(nil)"
    case .double(let value): return "(double) \(value)"
    case .boolean(let value): return value ? "(true)" : "(false)"
    case .bigNumber(let digits): return "(big number) \(digits)"
    case .verbatim(_, let text): return text
    case .array(let values?): return Self.numbered(values, "(empty array)", marker: ")")
    case .set(let values): return Self.numbered(values, "(empty set)", marker: "~")
    case .push(let values): return Self.numbered(values, "(empty push)", marker: ")")
    case .map(let pairs):
      return Self.numbered(pairs, "(empty hash)", marker: "#") { pair in
        let key = pair.key.description
        return key + " => " + Self.indented(pair.value.description, by: key.count + 4)
      }
    }
  }

  /// One line per item, `N<marker> ` before the first line of each and the item's other lines
  /// indented to match; `empty` when there is none.
  private static func numbered<Item>(
    _ items: [Item], _ empty: String, marker: Character,
    _ text: (Item) -> String = { "\($0)" }
  ) -> String {
    guard !items.isEmpty else { return empty }
    return items.enumerated().map { index, item in
      let number = "\(index + 1)\(marker) "
      return number + indented(text(item), by: number.count)
    }.joined(separator: "\n")
  }

  /// `text` with every line but the first indented by `width` spaces.
  private static func indented(_ text: String, by width: Int) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .joined(separator: "\n" + String(repeating: " ", count: width))
  }
}
