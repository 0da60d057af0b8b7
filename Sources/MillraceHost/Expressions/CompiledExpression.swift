/// A compiled expression of a program: which of the program's shapes evaluates it (see
/// `_ExpressionShape`), and the type of the value it gives (for an assignment or a parameter,
/// the destination's type). Small enough to be passed in registers.
@usableFromInline
struct CompiledExpression: Hashable, Sendable {
  /// Its index among the program's shapes.
  @usableFromInline let index: Int32
  /// The type of its value.
  @usableFromInline let type: ValueType

  init(index: Int32, type: ValueType) {
    self.index = index
    self.type = type
  }
}
