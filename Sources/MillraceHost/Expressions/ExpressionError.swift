/// Why an expression is refused: a syntax error, an unknown name, a type error or a limit.
///
/// `description` is `column N: message` when the problem has a place in the text (columns are
/// 1-based and count Unicode scalars) and `message` alone when it concerns the whole
/// expression.
struct ExpressionError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, e.g. `expected an operand, found ")"` or `unknown name "atempts"`.
  let message: String
  /// Where, 1-based; nil when the whole expression is concerned.
  let column: Int?

  init(_ message: String, column: Int? = nil) {
    self.message = message
    self.column = column
  }

  var description: String {
    column.map { "column \($0): \(message)" } ?? message
  }
}

/// The limits that keep hostile or runaway expressions from exhausting the stack or the time of
/// a load.
enum ExpressionLimits {
  /// The longest expression text, in bytes.
  static let maxTextBytes = 1024
  /// The deepest nesting of parentheses and prefix operators (`not`, unary `-`).
  static let maxNesting = 32
  /// The most intermediate values one evaluation keeps aside at once (besides the
  /// accumulator).
  static let maxTemporaries = 64
}
