import Testing

@testable import MillraceHost

/// Type rules, unknown names and what assignments accept, with their messages.
@Suite struct ExpressionTypeCheckTests {
  let fixture = ExpressionFixture(
    context: [
      ("attempts", .int), ("locked", .bool), ("user", .string(max: 16)),
      ("code", .string(max: 4)), ("n", .int),
    ],
    parameters: [("name", .string(max: 32)), ("pin", .int), ("short", .string(max: 8))])

  @Test(arguments: [
    ("atempts > 1", "column 1: unknown name \"atempts\""),
    ("attempts + x * 2", "column 12: unknown name \"x\""),
    ("attempts + locked", "column 10: \"+\" needs two ints, got int and bool"),
    ("user - 1", "column 6: \"-\" needs two ints, got string and int"),
    ("1 * true", "column 3: \"*\" needs two ints, got int and bool"),
    ("pin / 'a'", "column 5: \"/\" needs two ints, got int and string"),
    ("pin % locked", "column 5: \"%\" needs two ints, got int and bool"),
    ("locked < true", "column 8: \"<\" needs two ints, got bool and bool"),
    ("user >= name", "column 6: \">=\" needs two ints, got string and string"),
    ("attempts == locked", "column 10: \"==\" needs two values of the same type, got int and bool"),
    ("user != 1", "column 6: \"!=\" needs two values of the same type, got string and int"),
    ("attempts and locked", "column 10: \"and\" needs two bools, got int and bool"),
    ("locked or 'x'", "column 8: \"or\" needs two bools, got bool and string"),
    ("not attempts", "column 1: \"not\" needs a bool, got int"),
    ("-locked", "column 1: \"-\" needs an int, got bool"),
    ("-(user)", "column 1: \"-\" needs an int, got string"),
  ])
  func typeErrors(text: String, message: String) {
    #expect(fixture.error(text) == message)
  }

  @Test func wellTypedExpressions() {
    for text in [
      "attempts + 1 >= 3", "pin == 1234", "not locked and attempts < 3", "user == name",
      "name != 'bob'", "locked == false", "(attempts == 1) == locked", "user", "'x'", "-pin",
      "attempts % 7 / 2 * 3 - 1",
    ] {
      #expect(fixture.error(text) == nil, "\(text)")
    }
  }

  @Test func guardsAreBools() {
    #expect(fixture.error("attempts + 1", as: .bool) == "a guard must be a bool, got int")
    #expect(fixture.error("user", as: .bool) == "a guard must be a bool, got string")
    #expect(fixture.error("attempts > 1", as: .bool) == nil)
  }

  @Test func assignmentsHaveTheVariablesType() {
    let attempts = ExpressionRole.assignment(variable: "attempts")
    #expect(
      fixture.error("locked", as: .int, for: attempts)
        == "\"attempts\" is an int; this value is a bool")
    #expect(
      fixture.error("'0'", as: .int, for: attempts)
        == "\"attempts\" is an int; this value is a string")
    #expect(
      fixture.error("pin", as: .bool, for: .assignment(variable: "locked"))
        == "\"locked\" is a bool; this value is an int")
    #expect(
      fixture.error("1", as: .string(max: 16), for: .assignment(variable: "user"))
        == "\"user\" is a string; this value is an int")
    #expect(
      fixture.error("'x'", as: .int, for: .argument(parameter: "pin"))
        == "parameter \"pin\" is an int; this value is a string")
    #expect(fixture.error("attempts + pin", as: .int, for: attempts) == nil)
  }

  @Test func stringsMustFit() {
    let user = ExpressionRole.assignment(variable: "user")
    #expect(
      fixture.error("name", as: .string(max: 16), for: user)
        == "\"user\" is a string of at most 16 bytes; this value can be up to 32 bytes")
    #expect(fixture.error("short", as: .string(max: 16), for: user) == nil)
    #expect(fixture.error("user", as: .string(max: 16), for: user) == nil)
    #expect(
      fixture.error("'abcde'", as: .string(max: 4), for: .assignment(variable: "code"))
        == "\"code\" is a string of at most 4 bytes; 'abcde' is 5 bytes")
    #expect(fixture.error("'abcd'", as: .string(max: 4), for: .assignment(variable: "code")) == nil)
    #expect(fixture.error("''", as: .string(max: 4), for: .assignment(variable: "code")) == nil)
    #expect(
      fixture.error("name", as: .string(max: 8), for: .argument(parameter: "who"))
        == "parameter \"who\" is a string of at most 8 bytes; this value can be up to 32 bytes")
  }

  @Test func anyTypeGivesTheValuesType() throws {
    var builder = ExpressionProgramBuilder()
    let scope = fixture.scope
    #expect(try builder.compile("attempts + 1", in: scope).type == .int)
    #expect(try builder.compile("attempts > 1", in: scope).type == .bool)
    #expect(try builder.compile("name", in: scope).type == .string(max: 32))
    #expect(try builder.compile("'abc'", in: scope).type == .string(max: 3))
    #expect(try builder.compile("''", in: scope).type == .string(max: 1))
    #expect(
      try builder.compile("short", as: .string(max: 16), for: .guard, in: scope).type
        == .string(max: 16), "an expected type is the value's type")
  }

  @Test func aScopeFunctionIsAskedForEachName() throws {
    nonisolated(unsafe) var asked: [String] = []
    let scope = ExpressionScope { name in
      asked.append(name)
      return name == "n" ? ExpressionBinding(.int, .parameter(0)) : nil
    }
    var builder = ExpressionProgramBuilder()
    _ = try builder.compile("n + n > 1", as: .bool, for: .guard, in: scope)
    #expect(asked == ["n", "n"])
  }

  @Test func aFailedCompilationLeavesTheBuilderUnchanged() throws {
    var builder = ExpressionProgramBuilder()
    let first = try builder.compile("attempts + 1 > 2", as: .bool, for: .guard, in: fixture.scope)
    let instructions = builder.instructions
    let constants = builder.constants
    // Fails in code generation, after instructions and constants were appended.
    #expect(throws: ExpressionError.self) {
      try builder.compile(
        "'abc' == user and " + temporariesHungry(levels: 32), in: fixture.scope)
    }
    #expect(builder.instructions == instructions)
    #expect(builder.constants == constants)
    #expect(builder.shapes.count == 1)
    let second = try builder.compile("attempts * 7 == 3", in: fixture.scope)
    let program = builder.finish()
    var machine = fixture
    try machine.set("attempts", "1")
    #expect(machine.evaluate(first, in: program) == 0)
    #expect(machine.evaluate(second, in: program) == 0)
    try machine.set("attempts", "2")
    #expect(machine.evaluate(first, in: program) == 1)
  }
}

/// An int expression of `n` (an int variable) with `levels` nested parentheses, whose
/// evaluation keeps 2 * `levels` + 2 values aside at its deepest (one at `==`, two per level
/// for `n*n+` and `n*n*`, one in the innermost `n*n+n*n*n`); true when `n` is 1.
func temporariesHungry(levels: Int) -> String {
  var text = "n*n+n*n*n"
  for _ in 0..<levels { text = "n*n+n*n*(" + text + ")" }
  return "n*n+\(levels + 1)==" + text
}
