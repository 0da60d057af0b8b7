/// How a compiled expression of a common shape is evaluated inline, from the compiled
/// expression alone (no instruction fetched, no frame set up):
/// - `operation`: `left OP right`, then, if `hasThen`, `value THEN then`; each operand an
///   immediate (source `.constants`: the operand is the value itself), a context word or a
///   parameter word. A literal, a name, `not x`, `-x`, `x + 1`, `a + 1 >= b` have this shape.
/// - `stringCopy`: the string at word `left` of `leftSource` (the program's constants, the
///   context or the parameters), at most `right` bytes, written as `then` words.
/// - `general`: anything else, evaluated by running the program's code from `entry`.
/// Int and bool expressions of every shape also have code in the program.
@usableFromInline
struct _ExpressionShape: Hashable, Sendable {
  @usableFromInline
  enum Kind: UInt8, Sendable {
    case general, operation, stringCopy
  }

  @usableFromInline var kind: Kind = .general
  /// The index of the expression's first instruction in the program.
  @usableFromInline var entry: Int32 = 0
  @usableFromInline var opcode: _ExpressionOpcode = .move
  @usableFromInline var thenOpcode: _ExpressionOpcode = .move
  @usableFromInline var hasThen = false
  @usableFromInline var leftSource: _ExpressionSource = .constants
  @usableFromInline var rightSource: _ExpressionSource = .constants
  @usableFromInline var thenSource: _ExpressionSource = .constants
  @usableFromInline var left: Int64 = 0
  @usableFromInline var right: Int64 = 0
  @usableFromInline var then: Int64 = 0

  /// The shape of expressions that run the program's code.
  static let general = _ExpressionShape()

  /// A string copied from `operand` (`maximum` bytes at most) to `words` words.
  static func stringCopy(_ operand: ExpressionOperand, maximum: Int, words: Int) -> Self {
    var shape = _ExpressionShape()
    shape.kind = .stringCopy
    shape.leftSource = operand.source
    shape.left = Int64(operand.offset)
    shape.right = Int64(maximum)
    shape.then = Int64(words)
    return shape
  }

  /// The inline shape of the int or bool expression `tree`, or `general`.
  static func of(_ tree: CheckedExpression) -> Self {
    let root = tree.syntax.root
    if let leaf = operand(root, tree) {
      return operation(.move, leaf, (.constants, 0))
    }
    if let shape = single(root, tree) { return shape }
    var first: _ExpressionShape
    var then: (_ExpressionOpcode, (_ExpressionSource, Int64))
    switch tree.syntax.nodes[root] {
    case .unary(.not, let operand):
      guard let shape = single(operand, tree) else { return .general }
      (first, then) = (shape, (.equal, (.constants, 0)))
    case .binary(let op, let left, let right):
      guard let opcode = opcode(op, right, tree), let shape = single(left, tree),
        let leaf = operand(right, tree)
      else { return .general }
      (first, then) = (shape, (opcode, leaf))
    default:
      return .general
    }
    first.hasThen = true
    first.thenOpcode = then.0
    (first.thenSource, first.then) = then.1
    return first
  }

  private static func operation(
    _ opcode: _ExpressionOpcode, _ left: (_ExpressionSource, Int64),
    _ right: (_ExpressionSource, Int64)
  ) -> Self {
    var shape = _ExpressionShape()
    shape.kind = .operation
    shape.opcode = opcode
    (shape.leftSource, shape.left) = left
    (shape.rightSource, shape.right) = right
    return shape
  }

  /// The shape of `node` when it is one operation on leaves.
  private static func single(_ node: Int, _ tree: CheckedExpression) -> Self? {
    switch tree.syntax.nodes[node] {
    case .unary(let op, let operand):
      guard let leaf = self.operand(operand, tree) else { return nil }
      return op == .not
        ? operation(.equal, leaf, (.constants, 0)) : operation(.subtract, (.constants, 0), leaf)
    case .binary(let op, let left, let right):
      guard let opcode = opcode(op, right, tree), let first = operand(left, tree),
        let second = operand(right, tree)
      else { return nil }
      return operation(opcode, first, second)
    default:
      return nil
    }
  }

  /// The opcode of an operation on words (not `and`, `or` or a comparison of strings).
  private static func opcode(
    _ op: ExpressionOperator, _ right: Int, _ tree: CheckedExpression
  ) -> _ExpressionOpcode? {
    if tree.types.types[right].stringMax != nil { return nil }
    switch op {
    case .and, .or, .not, .negate: return nil
    case .equal: return .equal
    case .notEqual: return .notEqual
    case .less: return .less
    case .lessOrEqual: return .lessOrEqual
    case .greater: return .greater
    case .greaterOrEqual: return .greaterOrEqual
    case .add: return .add
    case .subtract: return .subtract
    case .multiply: return .multiply
    case .divide: return .divide
    case .remainder: return .remainder
    }
  }

  /// An int or bool leaf as an inline operand: an immediate or a word of the context or the
  /// parameters.
  private static func operand(
    _ node: Int, _ tree: CheckedExpression
  ) -> (_ExpressionSource, Int64)? {
    switch tree.syntax.nodes[node] {
    case .integer(let value): return (.constants, value)
    case .boolean(let value): return (.constants, value ? 1 : 0)
    case .name:
      let binding = tree.types.bindings[node]!
      guard binding.type.stringMax == nil else { return nil }
      switch binding.slot {
      case .context(let offset): return (.context, Int64(offset))
      case .parameter(let offset): return (.parameters, Int64(offset))
      }
    case .string, .unary, .binary: return nil
    }
  }
}
