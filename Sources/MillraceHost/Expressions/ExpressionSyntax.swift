/// An operator of the expression language.
enum ExpressionOperator: Equatable, Sendable {
  case or, and, not
  case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
  case add, subtract, multiply, divide, remainder
  case negate

  /// The operator as written.
  var symbol: String {
    switch self {
    case .or: "or"
    case .and: "and"
    case .not: "not"
    case .equal: "=="
    case .notEqual: "!="
    case .less: "<"
    case .lessOrEqual: "<="
    case .greater: ">"
    case .greaterOrEqual: ">="
    case .add: "+"
    case .subtract, .negate: "-"
    case .multiply: "*"
    case .divide: "/"
    case .remainder: "%"
    }
  }
}

/// An expression's syntax tree, stored flat: nodes refer to their operands by index, so no
/// part of the tree is freed recursively.
struct ExpressionSyntax: Equatable {
  /// One node; operands are indices into `nodes`.
  enum Node: Equatable {
    case integer(Int64)
    case boolean(Bool)
    /// A string literal's bytes (at most `ValueType.stringMaxBytes`).
    case string([UInt8])
    case name(String)
    case unary(ExpressionOperator, operand: Int)
    case binary(ExpressionOperator, left: Int, right: Int)
  }

  /// Every node; operands come before the nodes that use them.
  private(set) var nodes: [Node] = []
  /// Per node, the 1-based column where it is written (an operator's column for an operation).
  private(set) var columns: [Int] = []
  /// The whole expression.
  var root: Int { nodes.count - 1 }

  /// Adds `node`, written at `column`, and returns its index.
  mutating func append(_ node: Node, column: Int) -> Int {
    nodes.append(node)
    columns.append(column)
    return nodes.count - 1
  }

  /// The expression in fully parenthesized form (operations in parentheses), for tests and
  /// messages.
  func parenthesized(_ index: Int? = nil) -> String {
    switch nodes[index ?? root] {
    case .integer(let value): String(value)
    case .boolean(let value): String(value)
    case .string(let bytes): "'" + String(decoding: bytes, as: UTF8.self) + "'"
    case .name(let name): name
    case .unary(let op, let operand):
      "(\(op == .not ? "not " : "-")\(parenthesized(operand)))"
    case .binary(let op, let left, let right):
      "(\(parenthesized(left)) \(op.symbol) \(parenthesized(right)))"
    }
  }
}
