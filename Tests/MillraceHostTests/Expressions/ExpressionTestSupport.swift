@testable import MillraceHost

/// Context variables and input parameters laid out in words, as a machine and a request would
/// hold them, with a scope that names them.
struct ExpressionFixture {
  var context: [UInt64] = []
  var parameters: [UInt64] = []
  var bindings: [String: ExpressionBinding] = [:]

  init(context variables: [(String, ValueType)] = [], parameters: [(String, ValueType)] = []) {
    for (name, type) in variables {
      bindings[name] = ExpressionBinding(type, .context(context.count))
      context += [UInt64](repeating: 0, count: type.words)
    }
    for (name, type) in parameters {
      bindings[name] = ExpressionBinding(type, .parameter(self.parameters.count))
      self.parameters += [UInt64](repeating: 0, count: type.words)
    }
    // A word even where nothing is declared, so that every buffer has an address.
    if context.isEmpty { context = [0] }
    if self.parameters.isEmpty { self.parameters = [0] }
  }

  var scope: ExpressionScope { ExpressionScope(bindings) }

  /// Sets a variable or a parameter from its text form.
  mutating func set(_ name: String, _ text: String) throws {
    let binding = bindings[name]!
    let words = try binding.type.parse(text)
    switch binding.slot {
    case .context(let offset): context.replaceSubrange(offset..<offset + words.count, with: words)
    case .parameter(let offset):
      parameters.replaceSubrange(offset..<offset + words.count, with: words)
    }
  }

  /// The words of a variable or parameter.
  func words(of name: String) -> [UInt64] {
    let binding = bindings[name]!
    switch binding.slot {
    case .context(let offset): return Array(context[offset..<offset + binding.type.words])
    case .parameter(let offset): return Array(parameters[offset..<offset + binding.type.words])
    }
  }

  /// Compiles `text` as a value of any type into a program of its own and evaluates it.
  func evaluate(_ text: String) throws -> Int64? {
    var builder = ExpressionProgramBuilder()
    let expression = try builder.compile(text, in: scope)
    return evaluate(expression, in: builder.finish())
  }

  func evaluate(_ expression: CompiledExpression, in program: ExpressionProgram) -> Int64? {
    context.withUnsafeBufferPointer { context in
      parameters.withUnsafeBufferPointer { parameters in
        program.evaluate(
          expression, context: context.baseAddress!,
          parameters: parameters.baseAddress!)
      }
    }
  }

  /// Evaluates `expression` by running its code in the program, whatever its shape.
  func run(_ expression: CompiledExpression, in program: ExpressionProgram) -> Int64? {
    let entry = Int(program.code.shapes[Int(expression.index)].entry)
    return context.withUnsafeBufferPointer { context in
      parameters.withUnsafeBufferPointer { parameters in
        program.code._run(
          from: entry, context: context.baseAddress!, parameters: parameters.baseAddress!)
      }
    }
  }

  /// Writes `expression`'s value into `destination`.
  func write(
    _ expression: CompiledExpression, in program: ExpressionProgram, to destination: inout [UInt64]
  ) -> Bool {
    context.withUnsafeBufferPointer { context in
      parameters.withUnsafeBufferPointer { parameters in
        destination.withUnsafeMutableBufferPointer { destination in
          program.write(
            expression, to: destination.baseAddress!,
            context: context.baseAddress!,
            parameters: parameters.baseAddress!)
        }
      }
    }
  }

  /// The message of the error that compiling `text` (as `expected` for `role`, or as any type)
  /// throws; nil when it compiles.
  func error(
    _ text: String, as expected: ValueType? = nil, for role: ExpressionRole = .guard
  ) -> String? {
    var builder = ExpressionProgramBuilder()
    do {
      if let expected {
        _ = try builder.compile(text, as: expected, for: role, in: scope)
      } else {
        _ = try builder.compile(text, in: scope)
      }
      return nil
    } catch {
      return error.description
    }
  }
}

/// The words of a string value, for comparisons in tests.
func stringWords(_ text: String, max: Int) throws -> [UInt64] {
  try ValueType.string(max: max).parse(text)
}
