/// What an instruction of a compiled expression does with its operands.
@usableFromInline
enum _ExpressionOpcode: UInt8, Sendable {
  /// Checked Int64 arithmetic: overflow, and division or remainder by zero, fail.
  case add, subtract, multiply, divide, remainder
  /// Comparisons of two words (ints or bools), giving 1 or 0.
  case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
  /// Comparisons of two strings (length and bytes); `extra` is the smaller of their maxima.
  case stringEqual, stringNotEqual
  /// If left is 0, the result is 0 and evaluation goes on at `extra`; otherwise at the next.
  case andThen
  /// If left is not 0, the result is 1 and evaluation goes on at `extra`; otherwise at the next.
  case orElse
  /// The result is left.
  case move
}

/// Where an operand's words are: the program's constants, the machine's context, the input's
/// parameters or the evaluation's temporaries (the raw values index an evaluation's bases).
@usableFromInline
enum _ExpressionSource: UInt8, Sendable {
  case constants = 0
  case context = 1
  case parameters = 2
  case temporaries = 3
}

/// One instruction: `result = left OP right`, each operand a word offset in one of the
/// sources; the result goes to a temporary (the accumulator is the last one) or ends the
/// evaluation as the expression's value. 16 bytes.
@usableFromInline
struct _ExpressionInstruction: Equatable, Sendable {
  /// The `destination` that ends the evaluation with the instruction's result.
  @inlinable static var result: UInt8 { 0xFF }
  /// The temporary that holds the value of the last operation, until the next one.
  static let accumulator = UInt8(ExpressionLimits.maxTemporaries)

  @usableFromInline var opcode: _ExpressionOpcode
  @usableFromInline var leftSource: _ExpressionSource
  @usableFromInline var rightSource: _ExpressionSource
  @usableFromInline var destination: UInt8
  /// A jump target (an instruction index) or an opcode's extra operand (see the opcodes).
  @usableFromInline var extra: Int32
  @usableFromInline var left: Int32
  @usableFromInline var right: Int32

  init(
    _ opcode: _ExpressionOpcode, _ left: ExpressionOperand,
    _ right: ExpressionOperand = .zero, destination: UInt8, extra: Int32 = 0
  ) {
    self.opcode = opcode
    leftSource = left.source
    self.left = left.offset
    rightSource = right.source
    self.right = right.offset
    self.destination = destination
    self.extra = extra
  }
}

/// An operand: a word offset in one of the sources.
struct ExpressionOperand: Hashable {
  let source: _ExpressionSource
  let offset: Int32

  /// The constant 0, always the program's first constant word.
  static let zero = ExpressionOperand(source: .constants, offset: 0)

  /// The accumulator.
  static let accumulator = ExpressionOperand.temporary(Int(_ExpressionInstruction.accumulator))

  static func temporary(_ index: Int) -> ExpressionOperand {
    ExpressionOperand(source: .temporaries, offset: Int32(index))
  }
}
