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
        let expected = ExpressionReference(values: values, strings: strings).value(syntax)
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
