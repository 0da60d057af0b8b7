/// The compiled expressions of one kind, read-only: evaluated through unsafe pointers, without
/// allocating and without reference counting. Frees its storage when released.
///
/// Evaluation only reads the program, so one program can be evaluated from several threads.
@usableFromInline
final class ExpressionProgram: @unchecked Sendable {
  /// The shapes, instructions and constants, valid while the program lives: a copy can be kept
  /// where the evaluation runs (next to a dispatch table) as long as the program is kept too.
  @usableFromInline let code: _ExpressionCode
  /// How many instructions, constant words and expressions the program holds.
  let instructionCount: Int
  let constantCount: Int
  let shapeCount: Int

  init(
    instructions: [_ExpressionInstruction], constants: [UInt64], shapes: [_ExpressionShape]
  ) {
    let instructionStorage = UnsafeMutablePointer<_ExpressionInstruction>.allocate(
      capacity: max(1, instructions.count))
    instructionStorage.initialize(from: instructions, count: instructions.count)
    let constantStorage = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, constants.count))
    constantStorage.initialize(from: constants, count: constants.count)
    let shapeStorage = UnsafeMutablePointer<_ExpressionShape>.allocate(
      capacity: max(1, shapes.count))
    shapeStorage.initialize(from: shapes, count: shapes.count)
    code = _ExpressionCode(
      instructions: instructionStorage, constants: constantStorage, shapes: shapeStorage)
    instructionCount = instructions.count
    constantCount = constants.count
    shapeCount = shapes.count
  }

  deinit {
    code.instructions.deallocate()
    code.constants.deallocate()
    code.shapes.deallocate()
  }

  /// The int or bool (0 or 1) value of `expression`; nil when its evaluation fails (overflow,
  /// division or remainder by zero) or when it is a string.
  @inlinable @inline(__always)
  func evaluate(
    _ expression: CompiledExpression, context: UnsafePointer<UInt64>,
    parameters: UnsafePointer<UInt64>
  ) -> Int64? {
    code.evaluate(expression.index, context: context, parameters: parameters)
  }

  /// Writes the value of `expression` to `destination`, which holds `expression.type.words`
  /// words (a string's unused bytes are zeroed); false, with `destination` unchanged, when the
  /// evaluation fails.
  @inlinable @inline(__always)
  func write(
    _ expression: CompiledExpression, to destination: UnsafeMutablePointer<UInt64>,
    context: UnsafePointer<UInt64>, parameters: UnsafePointer<UInt64>
  ) -> Bool {
    code.write(expression.index, to: destination, context: context, parameters: parameters)
  }
}
