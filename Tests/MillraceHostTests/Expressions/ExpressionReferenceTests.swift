import Testing

@testable import MillraceHost

/// Random well-typed expressions give what a direct walk of their syntax tree gives.
@Suite struct ExpressionReferenceTests {
  static let names: [(String, ValueType)] = [
    ("a", .int), ("b", .int), ("f", .bool), ("s", .string(max: 8)),
  ]
  static let parameterNames: [(String, ValueType)] = [
    ("p", .int), ("g", .bool), ("t", .string(max: 20)),
  ]

  /// A random expression of `type`, fully parenthesized.
  private static func expression(
    _ type: ValueType, depth: Int, _ random: inout some RandomNumberGenerator
  ) -> String {
    let leaf = depth == 0 || Int.random(in: 0..<4, using: &random) == 0
    switch type {
    case .int:
      if leaf {
        return ["a", "b", "p", "0", "1", "-1", "7", "9223372036854775807", "-9223372036854775808"]
          .randomElement(using: &random)!
      }
      if Bool.random(using: &random) && Bool.random(using: &random) {
        return "(-\(expression(.int, depth: depth - 1, &random)))"
      }
      let op = ["+", "-", "*", "/", "%"].randomElement(using: &random)!
      return "(\(expression(.int, depth: depth - 1, &random)) \(op) "
        + "\(expression(.int, depth: depth - 1, &random)))"
    case .bool:
      if leaf { return ["f", "g", "true", "false"].randomElement(using: &random)! }
      switch Int.random(in: 0..<5, using: &random) {
      case 0:
        return "(not \(expression(.bool, depth: depth - 1, &random)))"
      case 1:
        let op = ["and", "or", "==", "!="].randomElement(using: &random)!
        return "(\(expression(.bool, depth: depth - 1, &random)) \(op) "
          + "\(expression(.bool, depth: depth - 1, &random)))"
      case 2:
        let op = ["==", "!="].randomElement(using: &random)!
        let strings = ["s", "t", "''", "'ab'", "'abc'"]
        return
          "(\(strings.randomElement(using: &random)!) \(op) \(strings.randomElement(using: &random)!))"
      default:
        let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
        return "(\(expression(.int, depth: depth - 1, &random)) \(op) "
          + "\(expression(.int, depth: depth - 1, &random)))"
      }
    case .string:
      return "s"
    }
  }

  /// The value of node `index` by walking the tree; nil when it fails.
  private static func reference(
    _ syntax: ExpressionSyntax, _ index: Int, _ values: [String: Int64],
    _ strings: [String: [UInt8]]
  ) -> Int64? {
    func string(_ node: Int) -> [UInt8] {
      switch syntax.nodes[node] {
      case .string(let bytes): bytes
      case .name(let name): strings[name]!
      default: fatalError("not a string")
      }
    }
    switch syntax.nodes[index] {
    case .integer(let value): return value
    case .boolean(let value): return value ? 1 : 0
    case .string: return nil
    case .name(let name): return values[name]
    case .unary(let op, let operand):
      guard let value = reference(syntax, operand, values, strings) else { return nil }
      if op == .not { return value == 0 ? 1 : 0 }
      let (negated, overflow) = Int64(0).subtractingReportingOverflow(value)
      return overflow ? nil : negated
    case .binary(let op, let left, let right):
      if case .string = syntax.nodes[left] {
        return (string(left) == string(right)) == (op == .equal) ? 1 : 0
      }
      if case .name(let name) = syntax.nodes[left], strings[name] != nil {
        return (string(left) == string(right)) == (op == .equal) ? 1 : 0
      }
      guard let l = reference(syntax, left, values, strings) else { return nil }
      if op == .and && l == 0 { return 0 }
      if op == .or && l != 0 { return 1 }
      guard let r = reference(syntax, right, values, strings) else { return nil }
      let result: (Int64, Bool)
      switch op {
      case .and, .or: result = (r, false)
      case .equal: result = (l == r ? 1 : 0, false)
      case .notEqual: result = (l != r ? 1 : 0, false)
      case .less: result = (l < r ? 1 : 0, false)
      case .lessOrEqual: result = (l <= r ? 1 : 0, false)
      case .greater: result = (l > r ? 1 : 0, false)
      case .greaterOrEqual: result = (l >= r ? 1 : 0, false)
      case .add: result = l.addingReportingOverflow(r)
      case .subtract: result = l.subtractingReportingOverflow(r)
      case .multiply: result = l.multipliedReportingOverflow(by: r)
      case .divide: result = l.dividedReportingOverflow(by: r)
      case .remainder: result = l.remainderReportingOverflow(dividingBy: r)
      case .not, .negate: fatalError("not binary")
      }
      return result.1 ? nil : result.0
    }
  }

  @Test func compiledAgreesWithTheTree() throws {
    var random = SystemRandomNumberGenerator()
    var fixture = ExpressionFixture(context: Self.names, parameters: Self.parameterNames)
    var builder = ExpressionProgramBuilder()
    var cases: [(String, CompiledExpression)] = []
    for _ in 0..<400 {
      let type: ValueType = Bool.random(using: &random) ? .int : .bool
      let text = Self.expression(type, depth: Int.random(in: 1...5, using: &random), &random)
      guard text.utf8.count <= ExpressionLimits.maxTextBytes else { continue }
      cases.append((text, try builder.compile(text, as: type, for: .guard, in: fixture.scope)))
    }
    let program = builder.finish()
    var failures = 0
    for _ in 0..<20 {
      var values: [String: Int64] = [:]
      for name in ["a", "b", "p"] {
        values[name] = [0, 1, -1, 2, 3, .max, .min, Int64.random(in: -100...100, using: &random)]
          .randomElement(using: &random)!
        try fixture.set(name, String(values[name]!))
      }
      for name in ["f", "g"] {
        values[name] = Int64.random(in: 0...1, using: &random)
        try fixture.set(name, values[name] == 1 ? "true" : "false")
      }
      var strings: [String: [UInt8]] = [:]
      for name in ["s", "t"] {
        let text = ["", "ab", "abc", "abd"].randomElement(using: &random)!
        strings[name] = Array(text.utf8)
        try fixture.set(name, text)
      }
      for (text, expression) in cases {
        let syntax = try ExpressionParser.parse(text)
        let expected = Self.reference(syntax, syntax.root, values, strings)
        if expected == nil { failures += 1 }
        #expect(fixture.evaluate(expression, in: program) == expected, "\(text) with \(values)")
        #expect(fixture.run(expression, in: program) == expected, "\(text) with \(values)")
      }
    }
    #expect(failures > 0, "some evaluations fail")
    let shapes = cases.map { program.code.shapes[Int($0.1.index)].kind }
    #expect(shapes.contains(.operation) && shapes.contains(.general))
  }
}
