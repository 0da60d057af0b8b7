// Shared by ExpressionReferenceTests and the `expression` fuzz target, which compiles this file
// together with Sources/MillraceHost/Expressions (one module, no import).
#if canImport(MillraceHost)
  @testable import MillraceHost
#endif

/// What an expression's value is by the language's rules, found by walking its syntax tree:
/// checked Int64 arithmetic (overflow and division or remainder by zero fail), `and` and `or`
/// short-circuiting, strings equal when their bytes are. Compiled code must give the same.
struct ExpressionReference {
  /// The value of each int name, and of each bool name (0 or 1).
  var values: [String: Int64]
  /// The bytes of each string name.
  var strings: [String: [UInt8]]

  /// The bytes of `node`, a string literal or a string name.
  func string(_ syntax: ExpressionSyntax, _ node: Int) -> [UInt8] {
    switch syntax.nodes[node] {
    case .string(let bytes): bytes
    case .name(let name): strings[name]!
    default: fatalError("not a string")
    }
  }

  /// Whether `node` is a string literal or a string name.
  func isString(_ syntax: ExpressionSyntax, _ node: Int) -> Bool {
    switch syntax.nodes[node] {
    case .string: true
    case .name(let name): strings[name] != nil
    default: false
    }
  }

  /// The int or bool (0 or 1) value of node `index`, the root by default; nil when its
  /// evaluation fails or when it is a string.
  func value(_ syntax: ExpressionSyntax, _ index: Int? = nil) -> Int64? {
    let index = index ?? syntax.root
    switch syntax.nodes[index] {
    case .integer(let value): return value
    case .boolean(let value): return value ? 1 : 0
    case .string: return nil
    case .name(let name): return values[name]
    case .unary(let op, let operand):
      guard let value = value(syntax, operand) else { return nil }
      if op == .not { return value == 0 ? 1 : 0 }
      let (negated, overflow) = Int64(0).subtractingReportingOverflow(value)
      return overflow ? nil : negated
    case .binary(let op, let left, let right):
      if isString(syntax, left) {
        return (string(syntax, left) == string(syntax, right)) == (op == .equal) ? 1 : 0
      }
      guard let l = value(syntax, left) else { return nil }
      if op == .and && l == 0 { return 0 }
      if op == .or && l != 0 { return 1 }
      guard let r = value(syntax, right) else { return nil }
      let result: (Int64, Bool)
      switch op {
      case .and, .or: result = (r, false)
      case .equal: result = (l == r ? 1 : 0, false)
      case .notEqual: result = (l != r ? 1 : 0, false)
      case .less: result = (l < r ? 1 : 0, false)
      case .lessOrEqual: result = (l <= r ? 1 : 0, false)
      case .greater: result = (l > r ? 1 : 0, false)
      case .greaterOrEqual: result = (l >= r ? 1 : 0, false)
      case .add: result = l.addingReportingOverflow(r)
      case .subtract: result = l.subtractingReportingOverflow(r)
      case .multiply: result = l.multipliedReportingOverflow(by: r)
      case .divide: result = l.dividedReportingOverflow(by: r)
      case .remainder: result = l.remainderReportingOverflow(dividingBy: r)
      case .not, .negate: fatalError("not binary")
      }
      return result.1 ? nil : result.0
    }
  }
}
