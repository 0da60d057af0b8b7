extension ExpressionProgramBuilder {
  /// Appends the code of `node`, whose value goes to the accumulator or, if `toResult`, ends
  /// the evaluation; temporaries from `free` on may be used on the way (those below hold
  /// values still needed). Returns the operand that holds the value (the accumulator, or the
  /// node itself for a literal or a name, which append nothing), or nil when the value was
  /// given as the result.
  mutating func generate(
    _ node: Int, of tree: CheckedExpression, free: Int, toResult: Bool
  ) throws(ExpressionError) -> ExpressionOperand? {
    switch tree.syntax.nodes[node] {
    case .integer(let value):
      return constant(value)
    case .boolean(let value):
      return constant(value ? 1 : 0)
    case .string(let bytes):
      return constant(string: bytes)
    case .name:
      switch tree.types.bindings[node]!.slot {
      case .context(let offset):
        return ExpressionOperand(source: .context, offset: Int32(offset))
      case .parameter(let offset):
        return ExpressionOperand(source: .parameters, offset: Int32(offset))
      }
    case .unary(let op, let operand):
      let value = try generate(operand, of: tree, free: free, toResult: false)!
      // `not x` is `x == 0`; `-x` is `0 - x`.
      return operation(
        op == .not ? .equal : .subtract, op == .not ? value : .zero,
        op == .not ? .zero : value, toResult: toResult)
    case .binary(let op, let left, let right) where op == .and || op == .or:
      let first = try generate(left, of: tree, free: free, toResult: false)!
      let destination =
        toResult ? _ExpressionInstruction.result : _ExpressionInstruction.accumulator
      let branch = instructions.count
      append(
        _ExpressionInstruction(op == .and ? .andThen : .orElse, first, destination: destination))
      if let second = try generate(right, of: tree, free: free, toResult: toResult),
        second != .accumulator
      {
        append(_ExpressionInstruction(.move, second, destination: destination))
      }
      patchJump(branch)
      return toResult ? nil : .accumulator
    case .binary(let op, let left, let right):
      var first = try generate(left, of: tree, free: free, toResult: false)!
      var rightFree = free
      if first == .accumulator && !tree.isLeaf(right) {
        // The right operand's code overwrites the accumulator: keep the left one aside.
        guard free < ExpressionLimits.maxTemporaries else {
          throw ExpressionError(
            "too complex: more than \(ExpressionLimits.maxTemporaries) intermediate values")
        }
        append(_ExpressionInstruction(.move, first, destination: UInt8(free)))
        first = .temporary(free)
        rightFree = free + 1
      }
      let second = try generate(right, of: tree, free: rightFree, toResult: false)!
      if let maxima = zip(
        tree.types.types[left].stringMax, tree.types.types[right].stringMax)
      {
        return operation(
          op == .equal ? .stringEqual : .stringNotEqual, first, second, toResult: toResult,
          extra: Int32(min(maxima.0, maxima.1)))
      }
      return operation(Self.opcode(op), first, second, toResult: toResult)
    }
  }

  private mutating func operation(
    _ opcode: _ExpressionOpcode, _ left: ExpressionOperand, _ right: ExpressionOperand,
    toResult: Bool, extra: Int32 = 0
  ) -> ExpressionOperand? {
    let destination = toResult ? _ExpressionInstruction.result : _ExpressionInstruction.accumulator
    append(_ExpressionInstruction(opcode, left, right, destination: destination, extra: extra))
    return toResult ? nil : .accumulator
  }

  private static func opcode(_ op: ExpressionOperator) -> _ExpressionOpcode {
    switch op {
    case .equal: .equal
    case .notEqual: .notEqual
    case .less: .less
    case .lessOrEqual: .lessOrEqual
    case .greater: .greater
    case .greaterOrEqual: .greaterOrEqual
    case .add: .add
    case .subtract, .negate: .subtract
    case .multiply: .multiply
    case .divide: .divide
    case .remainder: .remainder
    case .and: .andThen
    case .or: .orElse
    case .not: .equal
    }
  }
}

/// Both values, or nil if either is nil.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
  guard let a, let b else { return nil }
  return (a, b)
}
