/// A program's shapes, instructions and constants, as the evaluator reads them (see
/// `ExpressionProgram`, which owns them). Expressions of a common shape are evaluated inline
/// from their shape; the others run the program's instructions (`_run`, out of line).
@usableFromInline
struct _ExpressionCode: @unchecked Sendable {
  @usableFromInline let instructions: UnsafeMutablePointer<_ExpressionInstruction>
  @usableFromInline let constants: UnsafeMutablePointer<UInt64>
  @usableFromInline let shapes: UnsafeMutablePointer<_ExpressionShape>

  init(
    instructions: UnsafeMutablePointer<_ExpressionInstruction>,
    constants: UnsafeMutablePointer<UInt64>, shapes: UnsafeMutablePointer<_ExpressionShape>
  ) {
    self.instructions = instructions
    self.constants = constants
    self.shapes = shapes
  }

  /// See `ExpressionProgram.evaluate(_:context:parameters:)`; `index` is the expression's.
  @inlinable @inline(__always)
  func evaluate(
    _ index: Int32, context: UnsafePointer<UInt64>, parameters: UnsafePointer<UInt64>
  ) -> Int64? {
    let shape = shapes + Int(index)
    guard _fastPath(shape.pointee.kind == .operation) else {
      guard shape.pointee.kind == .general else { return nil }
      return _run(from: Int(shape.pointee.entry), context: context, parameters: parameters)
    }
    let left = Self._load(
      shape.pointee.leftSource, shape.pointee.left, context: context, parameters: parameters)
    let right = Self._load(
      shape.pointee.rightSource, shape.pointee.right, context: context, parameters: parameters)
    guard let value = Self._apply(shape.pointee.opcode, left, right) else { return nil }
    guard shape.pointee.hasThen else { return value }
    let then = Self._load(
      shape.pointee.thenSource, shape.pointee.then, context: context, parameters: parameters)
    return Self._apply(shape.pointee.thenOpcode, value, then)
  }

  /// See `ExpressionProgram.write(_:to:context:parameters:)`; `index` is the expression's.
  @inlinable @inline(__always)
  func write(
    _ index: Int32, to destination: UnsafeMutablePointer<UInt64>,
    context: UnsafePointer<UInt64>, parameters: UnsafePointer<UInt64>
  ) -> Bool {
    let shape = shapes + Int(index)
    if shape.pointee.kind == .stringCopy {
      return _copyString(shape, to: destination, context: context, parameters: parameters)
    }
    guard let value = evaluate(index, context: context, parameters: parameters) else {
      return false
    }
    destination.pointee = UInt64(bitPattern: value)
    return true
  }

  /// Writes the string of a `stringCopy` shape.
  @usableFromInline
  func _copyString(
    _ shape: UnsafePointer<_ExpressionShape>, to destination: UnsafeMutablePointer<UInt64>,
    context: UnsafePointer<UInt64>, parameters: UnsafePointer<UInt64>
  ) -> Bool {
    let source = shape.pointee.leftSource
    let base =
      source == .context ? context : source == .parameters ? parameters : UnsafePointer(constants)
    return _StringWords._copy(
      from: base + Int(shape.pointee.left), maximum: Int(shape.pointee.right), to: destination,
      words: Int(shape.pointee.then))
  }

  /// An inline operand: the immediate itself (source `.constants`), or a word of the context or
  /// the parameters.
  @inlinable @inline(__always)
  static func _load(
    _ source: _ExpressionSource, _ operand: Int64, context: UnsafePointer<UInt64>,
    parameters: UnsafePointer<UInt64>
  ) -> Int64 {
    if source == .constants { return operand }
    let base = source == .context ? context : parameters
    return Int64(bitPattern: base[Int(operand)])
  }

  /// `left OP right` for an operation on words; nil when it fails.
  @inlinable @inline(__always)
  static func _apply(_ opcode: _ExpressionOpcode, _ left: Int64, _ right: Int64) -> Int64? {
    let (value, failed): (Int64, Bool)
    switch opcode {
    case .add: (value, failed) = left.addingReportingOverflow(right)
    case .subtract: (value, failed) = left.subtractingReportingOverflow(right)
    case .multiply: (value, failed) = left.multipliedReportingOverflow(by: right)
    case .divide: (value, failed) = left.dividedReportingOverflow(by: right)
    case .remainder: (value, failed) = left.remainderReportingOverflow(dividingBy: right)
    case .equal: (value, failed) = (left == right ? 1 : 0, false)
    case .notEqual: (value, failed) = (left != right ? 1 : 0, false)
    case .less: (value, failed) = (left < right ? 1 : 0, false)
    case .lessOrEqual: (value, failed) = (left <= right ? 1 : 0, false)
    case .greater: (value, failed) = (left > right ? 1 : 0, false)
    case .greaterOrEqual: (value, failed) = (left >= right ? 1 : 0, false)
    case .move: (value, failed) = (left, false)
    case .stringEqual, .stringNotEqual, .andThen, .orElse: (value, failed) = (0, true)
    }
    return failed ? nil : value
  }
}
