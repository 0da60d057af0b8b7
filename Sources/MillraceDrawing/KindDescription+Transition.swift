extension KindDescription {
  /// A row of the transition table as written.
  public struct Transition: Hashable, Sendable {
    /// The input it handles; `*` for every input.
    public var on: String
    /// The states it applies in.
    public var from: Source
    /// The state it moves to; nil to stay.
    public var to: String?
    /// Its condition, an expression, when it has one.
    public var guardExpression: String?
    /// Its assignments, in file order.
    public var assignments: [Assignment]
    /// Its effects, in order.
    public var effects: [Effect]

    /// A row made in code.
    public init(
      on: String, from: Source, to: String? = nil, guard guardExpression: String? = nil,
      assignments: [Assignment] = [], effects: [Effect] = []
    ) {
      self.on = on
      self.from = from
      self.to = to
      self.guardExpression = guardExpression
      self.assignments = assignments
      self.effects = effects
    }

    /// The input then the guard in brackets: `login [pin == 1234]`.
    public var trigger: String {
      guardExpression.map { "\(on) [\($0)]" } ?? on
    }

    /// What the row does, one line each, in the order it runs: each assignment
    /// (`assign attempts = attempts + 1`), then each effect (`emit locked(name, attempts)`).
    public var actionLines: [String] {
      assignments.map(\.description) + effects.map(\.description)
    }
  }

  /// The states a row applies in.
  public enum Source: Hashable, Sendable {
    /// Every state (`"from": "*"`).
    case any
    /// The states named, in file order.
    case states([String])
  }

  /// An assignment to a context variable.
  public struct Assignment: Hashable, Sendable, CustomStringConvertible {
    /// The variable.
    public var variable: String
    /// The value, an expression.
    public var expression: String

    /// An assignment made in code.
    public init(_ variable: String, _ expression: String) {
      self.variable = variable
      self.expression = expression
    }

    /// `assign attempts = attempts + 1`.
    public var description: String { "assign \(variable) = \(expression)" }
  }
}
