/// Compiles the expressions of one kind (at load time) into one program: instructions and
/// constants are appended, and `finish()` hands them over to read-only storage.
///
/// A compilation that fails leaves the builder as it was.
struct ExpressionProgramBuilder {
  private(set) var instructions: [_ExpressionInstruction] = []
  /// Per compiled expression, how it is evaluated.
  private(set) var shapes: [_ExpressionShape] = []
  /// Constant words; word 0 is always 0 (the operand of `not`, unary `-` and unused operands).
  private(set) var constants: [UInt64] = [0]
  private var integerConstants: [Int64: Int32] = [0: 0]
  private var stringConstants: [[UInt8]: Int32] = [:]

  /// Compiles `text`, a value that must have type `expected` (a guard's `.bool`, a variable's
  /// or a parameter's type), in `scope`. A string fits when its maximum (a literal: its
  /// length) is at most `expected`'s; it is then written with `expected`'s words.
  mutating func compile(
    _ text: String, as expected: ValueType, for role: ExpressionRole, in scope: ExpressionScope
  ) throws(ExpressionError) -> CompiledExpression {
    let syntax = try ExpressionParser.parse(text)
    let types = try ExpressionTypes(syntax, in: scope)
    try Self.check(types.types[syntax.root], fits: expected, for: role, syntax: syntax)
    return try emit(syntax, types, as: expected)
  }

  /// Compiles `text`, a value of any type (an `emit` argument), in `scope`; the result's
  /// `type` is the value's.
  mutating func compile(
    _ text: String, in scope: ExpressionScope
  ) throws(ExpressionError) -> CompiledExpression {
    let syntax = try ExpressionParser.parse(text)
    let types = try ExpressionTypes(syntax, in: scope)
    return try emit(syntax, types, as: types.types[syntax.root])
  }

  /// The program of every expression compiled so far.
  func finish() -> ExpressionProgram {
    ExpressionProgram(instructions: instructions, constants: constants, shapes: shapes)
  }

  private static func check(
    _ actual: ValueType, fits expected: ValueType, for role: ExpressionRole,
    syntax: ExpressionSyntax
  ) throws(ExpressionError) {
    guard actual.isComparable(with: expected) else {
      throw ExpressionError(
        role == .guard
          ? "a guard must be \(expected.withArticle), got \(actual)"
          : "\(role.subject) is \(expected.withArticle); this value is \(actual.withArticle)")
    }
    guard let max = expected.stringMax else { return }
    if case .string(let bytes) = syntax.nodes[syntax.root] {
      guard bytes.count <= max else {
        throw ExpressionError(
          "\(role.subject) is a string of at most \(max) bytes; "
            + "\(syntax.parenthesized()) is \(bytes.count) bytes")
      }
    } else if let sourceMax = actual.stringMax, sourceMax > max {
      throw ExpressionError(
        "\(role.subject) is a string of at most \(max) bytes; "
          + "this value can be up to \(sourceMax) bytes")
    }
  }

  private mutating func emit(
    _ syntax: ExpressionSyntax, _ types: ExpressionTypes, as type: ValueType
  ) throws(ExpressionError) -> CompiledExpression {
    let entry = instructions.count
    let constantCount = constants.count
    let tree = CheckedExpression(syntax: syntax, types: types)
    var shape: _ExpressionShape
    do {
      let operand = try generate(syntax.root, of: tree, free: 0, toResult: true)
      if let sourceMax = types.types[syntax.root].stringMax {
        // A string is a literal or a name: always copied inline.
        shape = .stringCopy(operand!, maximum: sourceMax, words: type.words)
      } else {
        if let operand {
          append(
            _ExpressionInstruction(.move, operand, destination: _ExpressionInstruction.result))
        }
        shape = .of(tree)
      }
    } catch {
      instructions.removeSubrange(entry...)
      constants.removeSubrange(constantCount...)
      integerConstants = integerConstants.filter { $0.value < constantCount }
      stringConstants = stringConstants.filter { $0.value < constantCount }
      throw error
    }
    shape.entry = Int32(entry)
    shapes.append(shape)
    return CompiledExpression(index: Int32(shapes.count - 1), type: type)
  }

  /// The constant `value`'s operand, added once.
  mutating func constant(_ value: Int64) -> ExpressionOperand {
    if let offset = integerConstants[value] {
      return ExpressionOperand(source: .constants, offset: offset)
    }
    let offset = Int32(constants.count)
    constants.append(UInt64(bitPattern: value))
    integerConstants[value] = offset
    return ExpressionOperand(source: .constants, offset: offset)
  }

  /// The constant string `bytes`'s operand (length byte, bytes, zeros), added once.
  mutating func constant(string bytes: [UInt8]) -> ExpressionOperand {
    if let offset = stringConstants[bytes] {
      return ExpressionOperand(source: .constants, offset: offset)
    }
    let offset = Int32(constants.count)
    var words = [UInt64](repeating: 0, count: (1 + bytes.count + 7) / 8)
    words.withUnsafeMutableBytes { raw in
      raw[0] = UInt8(bytes.count)
      raw.baseAddress!.advanced(by: 1).copyMemory(from: bytes, byteCount: bytes.count)
    }
    constants.append(contentsOf: words)
    stringConstants[bytes] = offset
    return ExpressionOperand(source: .constants, offset: offset)
  }

  mutating func append(_ instruction: _ExpressionInstruction) {
    instructions.append(instruction)
  }

  /// Points the jump of instruction `index` at the next instruction to be appended.
  mutating func patchJump(_ index: Int) {
    instructions[index].extra = Int32(instructions.count)
  }
}
