/// The identifiers a Mermaid drawing uses for state names: a name that is a plain Mermaid
/// identifier (`[A-Za-z_][A-Za-z0-9_]*`, not one of the state diagram's keywords such as
/// `state`, `note` or `end`, nor starting with `default`, which Mermaid's lexer reads as a
/// keyword even then) is its own identifier; any other (`traffic.red`, `on:air`,
/// `logged-out`, `9lives`) gets an alias `s1`, `s2`, ... in the order the names are given,
/// skipping any alias that is also a name, so that two states never share an identifier.
struct MermaidIDs {
  /// The identifier of each name.
  private(set) var ids: [String: String] = [:]
  /// The names that have an alias (and must be declared `state "name" as sN`).
  private(set) var aliased: Set<String> = []

  /// The state diagram's keywords (compared without case): a state of that name would be
  /// read as the keyword.
  static let keywords: Set<String> = [
    "accdescr", "acctitle", "as", "choice", "class", "classdef", "click",
    "direction", "end", "fork", "hide", "join", "left", "note", "of", "right", "scale",
    "state", "statediagram", "style",
  ]

  /// Identifiers for `names` (each once, in order).
  init(_ names: [String]) {
    let taken = Set(names.map { $0.lowercased() })
    var next = 1
    for name in names where ids[name] == nil {
      if Self.isPlainIdentifier(name) {
        ids[name] = name
        continue
      }
      while taken.contains("s\(next)") { next += 1 }
      ids[name] = "s\(next)"
      aliased.insert(name)
      next += 1
    }
  }

  /// The identifier of `name`; a name not given at creation is its own.
  subscript(name: String) -> String { ids[name] ?? name }

  /// Whether `name` can stand as it is in a state diagram.
  static func isPlainIdentifier(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first == "_" || first.isASCIILetter else {
      return false
    }
    return name.unicodeScalars.allSatisfy { $0 == "_" || $0.isASCIILetter || $0.isASCIIDigit }
      && !keywords.contains(name.lowercased()) && !name.lowercased().hasPrefix("default")
  }
}

extension Unicode.Scalar {
  fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
