/// Where a name's value is: a word offset in the machine's context or in the input's
/// parameters.
enum ExpressionSlot: Hashable, Sendable {
  case context(Int)
  case parameter(Int)
}

/// What a name means in an expression: its type and where its value is.
struct ExpressionBinding: Hashable, Sendable {
  let type: ValueType
  let slot: ExpressionSlot

  init(_ type: ValueType, _ slot: ExpressionSlot) {
    self.type = type
    self.slot = slot
  }
}

/// The names an expression may use: context variables and the row's input parameters.
struct ExpressionScope {
  /// The binding of a name; nil for an unknown name.
  let lookup: (String) -> ExpressionBinding?

  /// A scope that asks `lookup` for each name.
  init(lookup: @escaping (String) -> ExpressionBinding?) {
    self.lookup = lookup
  }

  /// A scope of the names of `bindings`.
  init(_ bindings: [String: ExpressionBinding]) {
    lookup = { bindings[$0] }
  }
}

/// What a compiled value is for, which decides the messages of a type that does not fit.
enum ExpressionRole: Equatable, Sendable {
  /// A row's guard (a bool).
  case `guard`
  /// The value assigned to a context variable.
  case assignment(variable: String)
  /// The value of an input's parameter (an argument of `send`, `after` or `every`).
  case argument(parameter: String)
  /// Value `position` (from 1) of an output, as its first `emit` set its type.
  case value(output: String, position: Int)

  /// What must have the expected type, for messages.
  var subject: String {
    switch self {
    case .guard: "a guard"
    case .assignment(let variable): "\"\(variable)\""
    case .argument(let parameter): "parameter \"\(parameter)\""
    case .value(let output, let position): "value \(position) of output \"\(output)\""
    }
  }
}

extension ValueType {
  /// The type's name with its article: `an int`, `a bool`, `a string`.
  var withArticle: String {
    self == .int ? "an int" : "a \(self)"
  }
}
