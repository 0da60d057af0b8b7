import Testing

@testable import MillraceHost

/// Common expressions are evaluated inline (without running the program's code), and both
/// ways agree.
@Suite struct ExpressionShapeTests {
  static let fixture = ExpressionFixture(
    context: [("attempts", .int), ("locked", .bool), ("user", .string(max: 16)), ("limit", .int)],
    parameters: [("pin", .int), ("name", .string(max: 16))])

  @Test(arguments: [
    ("pin == 1234", _ExpressionShape.Kind.operation, false),
    ("attempts >= 3", .operation, false),
    ("3 <= attempts", .operation, false),
    ("attempts + 1 >= 3", .operation, true),
    ("attempts + 1 >= limit", .operation, true),
    ("not (attempts == pin)", .operation, true),
    ("not locked", .operation, false),
    ("-pin", .operation, false),
    ("locked", .operation, false),
    ("7", .operation, false),
    ("attempts * 2 + 1", .operation, true),
    ("attempts + 1 + 1 + 1", .general, false),
    ("1 + attempts * 2", .general, false),
    ("locked and pin == 1", .general, false),
    ("locked or true", .general, false),
    ("user == name", .general, false),
    ("not not locked", .operation, true),
    ("user", .stringCopy, false),
    ("'abc'", .stringCopy, false),
  ])
  func shapes(text: String, kind: _ExpressionShape.Kind, hasThen: Bool) throws {
    var builder = ExpressionProgramBuilder()
    let expression = try builder.compile(text, in: Self.fixture.scope)
    let shape = builder.shapes[Int(expression.index)]
    #expect(shape.kind == kind)
    #expect(shape.hasThen == hasThen)
  }

  @Test func inlineAndRunAgree() throws {
    let fixture = Self.fixture
    let texts = [
      "pin == 1234", "attempts >= 3", "3 <= attempts", "attempts + 1 >= 3",
      "attempts + 1 >= limit", "not (attempts == pin)", "not locked", "-pin", "locked", "7",
      "attempts * 2 + 1", "attempts / pin", "attempts % pin", "limit - attempts",
      "pin * 4611686018427387904", "attempts + 1 + 1 + 1", "-9223372036854775808 / pin",
    ]
    var builder = ExpressionProgramBuilder()
    let expressions = try texts.map { try builder.compile($0, in: fixture.scope) }
    let program = builder.finish()
    for (values, fixture) in try Self.valueSets() {
      for (text, expression) in zip(texts, expressions) {
        #expect(
          fixture.evaluate(expression, in: program) == fixture.run(expression, in: program),
          "\(text) with \(values)")
      }
    }
  }

  /// `fixture` with four sets of values (zeros, a login's, negatives, a mix), each with its
  /// description.
  static func valueSets() throws -> [(String, ExpressionFixture)] {
    try [("0", "0", "false"), ("2", "1234", "true"), ("-5", "-1", "false"), ("3", "-2", "true")]
      .map { attempts, pin, locked in
        var fixture = Self.fixture
        try fixture.set("attempts", attempts)
        try fixture.set("pin", pin)
        try fixture.set("locked", locked)
        try fixture.set("limit", "3")
        return ("attempts \(attempts), pin \(pin), locked \(locked)", fixture)
      }
  }
}
