/// Reads an expression's text into its syntax tree (see the "Expressions" section of the
/// machine file v2 format), refusing text over `ExpressionLimits.maxTextBytes` and nesting over
/// `ExpressionLimits.maxNesting` instead of exhausting the stack.
struct ExpressionParser {
  private let lexer: ExpressionLexer
  private let tokens: [ExpressionToken]
  private var position = 0
  private var depth = 0
  private var syntax = ExpressionSyntax()

  /// Parses `text` into its syntax tree.
  static func parse(_ text: String) throws(ExpressionError) -> ExpressionSyntax {
    guard text.utf8.count <= ExpressionLimits.maxTextBytes else {
      throw ExpressionError("expression longer than \(ExpressionLimits.maxTextBytes) bytes")
    }
    var parser = try ExpressionParser(text)
    _ = try parser.parseOr()
    guard case .end = parser.current.kind else {
      let found = parser.current
      let message =
        found.isSymbol(")") ? "unmatched \")\"" : "expected an operator, found \(found.shown)"
      throw ExpressionError(message, column: parser.lexer.column(found.offset))
    }
    return parser.syntax
  }

  private init(_ text: String) throws(ExpressionError) {
    lexer = ExpressionLexer(text)
    tokens = try lexer.tokens()
  }

  private var current: ExpressionToken { tokens[position] }

  private func column(of token: ExpressionToken) -> Int { lexer.column(token.offset) }

  private mutating func advance() -> ExpressionToken {
    defer { position += 1 }
    return tokens[position]
  }

  /// Enters one more level of nesting at `token`, or refuses it past the limit.
  private mutating func nest(at token: ExpressionToken) throws(ExpressionError) {
    depth += 1
    guard depth <= ExpressionLimits.maxNesting else {
      throw ExpressionError(
        "nested too deeply (at most \(ExpressionLimits.maxNesting) levels)",
        column: column(of: token))
    }
  }

  private mutating func binary(
    _ op: ExpressionOperator, _ left: Int, _ right: Int, at token: ExpressionToken
  ) -> Int {
    syntax.append(.binary(op, left: left, right: right), column: column(of: token))
  }

  private mutating func parseOr() throws(ExpressionError) -> Int {
    var left = try parseAnd()
    while current.isWord("or") {
      let token = advance()
      left = binary(.or, left, try parseAnd(), at: token)
    }
    return left
  }

  private mutating func parseAnd() throws(ExpressionError) -> Int {
    var left = try parseNot()
    while current.isWord("and") {
      let token = advance()
      left = binary(.and, left, try parseNot(), at: token)
    }
    return left
  }

  private mutating func parseNot() throws(ExpressionError) -> Int {
    guard current.isWord("not") else { return try parseComparison() }
    let token = advance()
    try nest(at: token)
    let operand = try parseNot()
    depth -= 1
    return syntax.append(.unary(.not, operand: operand), column: column(of: token))
  }

  private static let comparisons: [String: ExpressionOperator] = [
    "==": .equal, "!=": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater,
    ">=": .greaterOrEqual,
  ]

  private func comparison(_ token: ExpressionToken) -> ExpressionOperator? {
    if case .symbol(let symbol) = token.kind { Self.comparisons[symbol] } else { nil }
  }

  private mutating func parseComparison() throws(ExpressionError) -> Int {
    let left = try parseAdditive()
    guard let op = comparison(current) else { return left }
    let token = advance()
    let result = binary(op, left, try parseAdditive(), at: token)
    if comparison(current) != nil {
      throw ExpressionError(
        "\(current.shown) cannot follow a comparison; join comparisons with \"and\"",
        column: column(of: current))
    }
    return result
  }

  private mutating func parseAdditive() throws(ExpressionError) -> Int {
    var left = try parseMultiplicative()
    while current.isSymbol("+") || current.isSymbol("-") {
      let token = advance()
      left = binary(
        token.isSymbol("+") ? .add : .subtract, left, try parseMultiplicative(), at: token)
    }
    return left
  }

  private mutating func parseMultiplicative() throws(ExpressionError) -> Int {
    var left = try parseUnary()
    while current.isSymbol("*") || current.isSymbol("/") || current.isSymbol("%") {
      let token = advance()
      let op: ExpressionOperator =
        token.isSymbol("*") ? .multiply : token.isSymbol("/") ? .divide : .remainder
      left = binary(op, left, try parseUnary(), at: token)
    }
    return left
  }

  private mutating func parseUnary() throws(ExpressionError) -> Int {
    guard current.isSymbol("-") else { return try parsePrimary() }
    let token = advance()
    if case .integer(let magnitude) = current.kind {
      // A negative literal: the only way to write Int64.min.
      _ = advance()
      let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
      return syntax.append(.integer(value), column: column(of: token))
    }
    try nest(at: token)
    let operand = try parseUnary()
    depth -= 1
    return syntax.append(.unary(.negate, operand: operand), column: column(of: token))
  }

  private mutating func parsePrimary() throws(ExpressionError) -> Int {
    let token = current
    let at = column(of: token)
    switch token.kind {
    case .integer(let magnitude):
      guard magnitude <= UInt64(Int64.max) else {
        throw ExpressionError("integer literal out of the 64-bit range", column: at)
      }
      _ = advance()
      return syntax.append(.integer(Int64(magnitude)), column: at)
    case .string(let bytes):
      _ = advance()
      return syntax.append(.string(bytes), column: at)
    case .word("true"), .word("false"):
      _ = advance()
      return syntax.append(.boolean(token.isWord("true")), column: at)
    case .word(let name) where !ExpressionIdentifier.keywords.contains(name):
      _ = advance()
      return syntax.append(.name(name), column: at)
    case .symbol("("):
      _ = advance()
      try nest(at: token)
      let inner = try parseOr()
      depth -= 1
      guard current.isSymbol(")") else {
        throw ExpressionError("expected \")\", found \(current.shown)", column: column(of: current))
      }
      _ = advance()
      return inner
    default:
      throw ExpressionError("expected an operand, found \(token.shown)", column: at)
    }
  }
}
