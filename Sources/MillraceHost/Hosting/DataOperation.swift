/// What one dispatch of a data kind evaluates against: the context, then the input's
/// arguments, then a zero word, back to back, so that every operand is a word offset from one
/// pointer (`_DataOperation`).
@usableFromInline
struct _DataFrame<Words: DataWords>: DataWords {
  @usableFromInline var context: Words
  @usableFromInline var parameters: Words
  @usableFromInline var zero: UInt64 = 0

  @inlinable @inline(__always)
  init(context: Words, parameters: Words) {
    self.context = context
    self.parameters = parameters
  }

  /// All zeros.
  @usableFromInline
  init() {
    self.init(context: Words(), parameters: Words())
  }

  /// Two values and the zero word.
  @usableFromInline static var count: Int { 2 * Words.count + 1 }

  /// The word the parameters start at.
  @inlinable static var parameterBase: Int { Words.count }

  /// The zero word.
  static var zeroWord: Int { 2 * Words.count }

  /// Whether the words are where `parameterBase` and `zeroWord` say.
  static var isContiguous: Bool {
    let word = MemoryLayout<UInt64>.stride
    return MemoryLayout<Self>.offset(of: \.parameters) == parameterBase * word
      && MemoryLayout<Self>.offset(of: \.zero) == zeroWord * word
      && MemoryLayout<Self>.size == count * word
  }
}

/// An int or bool expression as a data kind's dispatch evaluates it, kept inline where it is
/// used (a candidate's guard, an assignment, an argument), 16 bytes: one operation on a word of
/// the frame (`_DataFrame`) and `frame[right] + immediate` (a word and 0, or the frame's zero
/// word and an immediate: no branch picks the operand), or, for every other expression
/// (strings, `and`, `or`, two operations), the expression's index in the kind's program.
/// Both give the value the program gives.
@usableFromInline
struct _DataOperation: Sendable {
  /// What the operation does: one byte, so that evaluation is one jump.
  @usableFromInline
  enum Code: UInt8, Sendable {
    /// Evaluated by the program (`expression`).
    case program
    /// Checked arithmetic on the two operands.
    case add, subtract, multiply, divide, remainder
    /// 1 when the operands compare as one of `relation`'s bits, else 0: no jump.
    case compare
    /// The left operand.
    case move
  }

  /// The bits of `relation`: which orders of `left` and `right` make a comparison true.
  @usableFromInline static var lessBit: UInt8 { 1 }
  @usableFromInline static var equalBit: UInt8 { 2 }
  @usableFromInline static var greaterBit: UInt8 { 4 }

  @usableFromInline let code: Code
  /// For `compare`: `lessBit`, `equalBit` and `greaterBit` combined.
  @usableFromInline let relation: UInt8
  @usableFromInline let left: UInt8
  @usableFromInline let right: UInt8
  /// The expression's index in the program.
  @usableFromInline let expression: Int32
  @usableFromInline let immediate: Int64

  /// The operands, against `frame`.
  @inlinable @inline(__always)
  func _operands(_ frame: UnsafePointer<UInt64>) -> (Int64, Int64) {
    (Int64(bitPattern: frame[Int(left)]), Int64(bitPattern: frame[Int(right)]) &+ immediate)
  }

  /// Whether `left` and `right` compare as one of `relation`'s bits, without a jump.
  @inlinable @inline(__always)
  func _holds(_ left: Int64, _ right: Int64) -> Bool {
    let order =
      (left < right ? Self.lessBit : 0) | (left == right ? Self.equalBit : 0)
      | (left > right ? Self.greaterBit : 0)
    return order & relation != 0
  }

  /// The value of the operation against `frame`; nil when it fails (overflow, division by
  /// zero). One jump on the code, which also leads to `program` (given the expression's
  /// index) for a `program` operation.
  @_transparent
  @usableFromInline
  func _evaluate(_ frame: UnsafePointer<UInt64>, program: (Int32) -> Int64?) -> Int64? {
    typealias Evaluator = _ExpressionCode
    let (left, right) = _operands(frame)
    switch code {
    case .program: return program(expression)
    case .add: return Evaluator._apply(.add, left, right)
    case .subtract: return Evaluator._apply(.subtract, left, right)
    case .multiply: return Evaluator._apply(.multiply, left, right)
    case .divide: return Evaluator._apply(.divide, left, right)
    case .remainder: return Evaluator._apply(.remainder, left, right)
    case .compare: return _holds(left, right) ? 1 : 0
    case .move: return left
    }
  }

}

extension _DataOperation {
  /// `expression` of `program`, for a frame whose parameters start at word `parameterBase` and
  /// whose word `zeroWord` is 0.
  init(
    _ expression: CompiledExpression, of program: ExpressionProgram, parameterBase: Int,
    zeroWord: Int
  ) {
    let shape = program.code.shapes[Int(expression.index)]
    var inline: (_ExpressionOpcode, left: Int, right: Int, Int64)?
    if shape.kind == .operation && !shape.hasThen {
      inline = Self.inline(shape, parameterBase: parameterBase, zeroWord: zeroWord)
    }
    guard let (opcode, left, right, immediate) = inline, left <= UInt8.max, right <= UInt8.max,
      var (code, relation) = Self.code(opcode)
    else {
      self.init(
        code: .program, relation: 0, left: 0, right: 0, expression: expression.index,
        immediate: 0)
      return
    }
    if code == .move && expression.type == .bool {
      // A bool is 0 or 1: itself is `!= 0`, a comparison without a jump (right is 0 + 0).
      (code, relation) = (.compare, Self.lessBit | Self.greaterBit)
    }
    self.init(
      code: code, relation: relation, left: UInt8(left), right: UInt8(right),
      expression: expression.index, immediate: immediate)
  }

  /// The code and relation of `opcode`; nil for one that is not evaluated inline.
  private static func code(_ opcode: _ExpressionOpcode) -> (Code, UInt8)? {
    switch opcode {
    case .add: return (.add, 0)
    case .subtract: return (.subtract, 0)
    case .multiply: return (.multiply, 0)
    case .divide: return (.divide, 0)
    case .remainder: return (.remainder, 0)
    case .move: return (.move, 0)
    case .equal: return (.compare, equalBit)
    case .notEqual: return (.compare, lessBit | greaterBit)
    case .less: return (.compare, lessBit)
    case .lessOrEqual: return (.compare, lessBit | equalBit)
    case .greater: return (.compare, greaterBit)
    case .greaterOrEqual: return (.compare, greaterBit | equalBit)
    case .stringEqual, .stringNotEqual, .andThen, .orElse: return nil
    }
  }

  /// A shape of one operation as a word on the left and a word plus an immediate on the right
  /// (the operands swapped where the operation allows it, the frame's zero word for an
  /// immediate alone): its opcode, left word, right word and immediate; nil when it has none.
  private static func inline(
    _ shape: _ExpressionShape, parameterBase: Int, zeroWord: Int
  ) -> (_ExpressionOpcode, left: Int, right: Int, Int64)? {
    /// An operand as a word and an immediate.
    func operand(_ source: _ExpressionSource, _ offset: Int64) -> (word: Int, immediate: Int64)? {
      switch source {
      case .context: return (Int(offset), 0)
      case .parameters: return (parameterBase + Int(offset), 0)
      case .constants: return (zeroWord, offset)
      case .temporaries: return nil
      }
    }
    guard let left = operand(shape.leftSource, shape.left),
      let right = operand(shape.rightSource, shape.right)
    else { return nil }
    if shape.opcode == .move {
      // A name, or a literal: 0 + it.
      return left.immediate == 0
        ? (.move, left.word, zeroWord, 0) : (.add, zeroWord, zeroWord, left.immediate)
    }
    if left.immediate == 0 { return (shape.opcode, left.word, right.word, right.immediate) }
    // An immediate on the left, a word on the right: swapped (`3 <= x` is `x >= 3`).
    guard right.immediate == 0, right.word != zeroWord, let swapped = shape.opcode.swapped
    else { return nil }
    return (swapped, right.word, zeroWord, left.immediate)
  }
}

extension _ExpressionOpcode {
  /// The opcode that gives the same value with its operands swapped, if there is one.
  var swapped: Self? {
    switch self {
    case .add, .multiply, .equal, .notEqual: return self
    case .less: return .greater
    case .lessOrEqual: return .greaterOrEqual
    case .greater: return .less
    case .greaterOrEqual: return .lessOrEqual
    case .subtract, .divide, .remainder, .stringEqual, .stringNotEqual, .andThen, .orElse, .move:
      return nil
    }
  }
}

/// An assignment or an argument as dispatch stores it: the operation and the first word it
/// writes (in the frame, or in an output's values).
@usableFromInline
struct _DataWrite: Sendable {
  @usableFromInline let operation: _DataOperation
  @usableFromInline let offset: Int32

  init(operation: _DataOperation, offset: Int32) {
    self.operation = operation
    self.offset = offset
  }

  /// A write that is never made (the program's first expression, at word 0).
  static let nothing = _DataWrite(
    operation: _DataOperation(
      code: .program, relation: 0, left: 0, right: 0, expression: 0, immediate: 0),
    offset: 0)
}
