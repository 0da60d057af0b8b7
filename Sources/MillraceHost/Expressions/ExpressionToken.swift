/// One token of an expression's text, with where it starts (a byte offset).
struct ExpressionToken: Equatable {
  enum Kind: Equatable {
    /// A decimal literal's magnitude (at most 2^63, which only a unary minus can use).
    case integer(UInt64)
    /// A single-quoted literal's bytes, escapes resolved.
    case string([UInt8])
    /// A name or a keyword (`and or not true false`).
    case word(String)
    /// One of `== != < <= > >= + - * / % ( )`.
    case symbol(String)
    /// The end of the text.
    case end
  }

  let kind: Kind
  /// Byte offset of the token's first byte.
  let offset: Int
  /// The token's text as written, for messages.
  let text: String

  /// The token as an error message shows it: quoted, or `the end`.
  var shown: String {
    if case .end = kind { return "the end" }
    let limit = 40
    let cut =
      text.utf8.count > limit
      ? String(decoding: text.utf8.prefix(limit), as: UTF8.self) + "..." : text
    return "\"" + cut + "\""
  }

  /// Whether the token is the symbol `symbol`.
  func isSymbol(_ symbol: String) -> Bool {
    if case .symbol(let text) = kind { text == symbol } else { false }
  }

  /// Whether the token is the word `word`.
  func isWord(_ word: String) -> Bool {
    if case .word(let text) = kind { text == word } else { false }
  }
}

/// The identifier rule for names used in expressions, `[A-Za-z_][A-Za-z0-9_]*`, keywords
/// excluded.
enum ExpressionIdentifier {
  /// The words with a meaning of their own, which cannot name a variable or a parameter.
  static let keywords: Set<String> = ["and", "or", "not", "true", "false"]

  /// Whether `name` can be used bare in an expression: it follows `[A-Za-z_][A-Za-z0-9_]*` and
  /// is not a keyword.
  static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.utf8.first, isStart(first),
      name.utf8.dropFirst().allSatisfy(isContinuation)
    else { return false }
    return !keywords.contains(name)
  }

  static func isStart(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "_"):
      true
    default: false
    }
  }

  static func isContinuation(_ byte: UInt8) -> Bool {
    isStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
  }
}
