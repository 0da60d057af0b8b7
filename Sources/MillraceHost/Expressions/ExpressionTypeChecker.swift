/// The types of an expression's nodes under a scope, checked by the language's rules:
/// arithmetic and ordering on ints, `==` and `!=` on two values of one type (two strings of any
/// sizes), `and`, `or` and `not` on bools.
struct ExpressionTypes {
  /// Per node of the syntax, its type.
  let types: [ValueType]
  /// Per node, the binding of a name (nil for other nodes).
  let bindings: [ExpressionBinding?]

  /// Checks every node of `syntax`, operands first, so the first problem in the text is the
  /// one reported. Loops over the flat tree: no recursion.
  init(_ syntax: ExpressionSyntax, in scope: ExpressionScope) throws(ExpressionError) {
    var types: [ValueType] = []
    var bindings: [ExpressionBinding?] = []
    types.reserveCapacity(syntax.nodes.count)
    bindings.reserveCapacity(syntax.nodes.count)
    for (index, node) in syntax.nodes.enumerated() {
      let column = syntax.columns[index]
      var binding: ExpressionBinding? = nil
      let type: ValueType
      switch node {
      case .integer: type = .int
      case .boolean: type = .bool
      case .string(let bytes): type = .string(max: max(1, bytes.count))
      case .name(let name):
        guard let found = scope.lookup(name) else {
          throw ExpressionError("unknown name \"\(name)\"", column: column)
        }
        binding = found
        type = found.type
      case .unary(let op, let operand):
        let expected: ValueType = op == .not ? .bool : .int
        guard types[operand] == expected else {
          throw ExpressionError(
            "\"\(op.symbol)\" needs \(expected.withArticle), got \(types[operand])",
            column: column)
        }
        type = expected
      case .binary(let op, let left, let right):
        type = try Self.binaryType(op, types[left], types[right], column: column)
      }
      types.append(type)
      bindings.append(binding)
    }
    self.types = types
    self.bindings = bindings
  }

  private static func binaryType(
    _ op: ExpressionOperator, _ left: ValueType, _ right: ValueType, column: Int
  ) throws(ExpressionError) -> ValueType {
    let operands: ValueType
    let result: ValueType
    switch op {
    case .or, .and:
      (operands, result) = (.bool, .bool)
    case .equal, .notEqual:
      guard left.isComparable(with: right) else {
        throw ExpressionError(
          "\"\(op.symbol)\" needs two values of the same type, got \(left) and \(right)",
          column: column)
      }
      return .bool
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      (operands, result) = (.int, .bool)
    case .add, .subtract, .multiply, .divide, .remainder, .not, .negate:
      (operands, result) = (.int, .int)
    }
    guard left == operands, right == operands else {
      throw ExpressionError(
        "\"\(op.symbol)\" needs two \(operands)s, got \(left) and \(right)", column: column)
    }
    return result
  }
}

/// An expression that passed the type checker: its syntax and its nodes' types, as code
/// generation reads them.
struct CheckedExpression {
  let syntax: ExpressionSyntax
  let types: ExpressionTypes

  /// Whether `node` is a literal or a name, whose value needs no code.
  func isLeaf(_ node: Int) -> Bool {
    switch syntax.nodes[node] {
    case .integer, .boolean, .string, .name: true
    case .unary, .binary: false
    }
  }
}
