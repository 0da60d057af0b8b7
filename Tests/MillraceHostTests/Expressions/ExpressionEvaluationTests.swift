import Testing

@testable import MillraceHost

/// Evaluation of compiled expressions: values, checked arithmetic, short circuits, strings,
/// and where names' values are read.
@Suite struct ExpressionEvaluationTests {
  @Test(
    arguments: [
      ("1 + 2 * 3", 7), ("1 + 2 * 3 == 7", 1), ("(1 + 2) * 3", 9), ("7 / 2", 3), ("-7 / 2", -3),
      ("7 % 3", 1), ("-7 % 3", -1), ("10 - 4 - 3", 3), ("-(2 - 5)", 3), ("- -4", 4),
      ("2 < 3", 1), ("3 < 3", 0), ("3 <= 3", 1), ("4 > 3", 1), ("3 >= 4", 0), ("3 != 4", 1),
      ("true", 1), ("false", 0), ("not true", 0), ("not false == true", 1),
      ("true and false", 0), ("true or false", 1), ("false or false", 0), ("true and true", 1),
      ("(1 < 2) == (2 < 3)", 1), ("false != true", 1),
      ("9223372036854775807", .max), ("-9223372036854775808", .min),
      ("-9223372036854775807 - 1", .min), ("-9223372036854775808 / 2", Int64.min / 2),
      ("(-9223372036854775807 - 1) / 3 < 0", 1),
    ] as [(String, Int64)])
  func values(text: String, value: Int64) throws {
    #expect(try ExpressionFixture().evaluate(text) == value)
  }

  @Test(arguments: [
    "9223372036854775807 + 1", "-9223372036854775808 - 1", "4611686018427387904 * 2",
    "-(-9223372036854775808)", "1 / 0", "1 % 0", "-9223372036854775808 / -1",
    "-9223372036854775808 % -1", "(1 / 0) == 1", "true and 1 / 0 == 1",
    "false or 1 % 0 == 0", "not (1 / 0 == 0)",
  ])
  func failingArithmeticGivesNil(text: String) throws {
    #expect(try ExpressionFixture().evaluate(text) == nil)
  }

  @Test func andAndOrShortCircuit() throws {
    let fixture = ExpressionFixture()
    #expect(try fixture.evaluate("false and 1 / 0 == 1") == 0)
    #expect(try fixture.evaluate("true or 1 / 0 == 1") == 1)
    #expect(try fixture.evaluate("(false and 1 / 0 == 1) == false") == 1)
    #expect(try fixture.evaluate("(true or 1 / 0 == 1) and 2 > 1") == 1)
    #expect(try fixture.evaluate("1 < 2 and (2 < 3 or 1 / 0 == 0) and not (3 < 2)") == 1)
  }

  @Test func contextAndParameterSlots() throws {
    var fixture = ExpressionFixture(
      context: [("attempts", .int), ("locked", .bool), ("limit", .int)],
      parameters: [("pin", .int), ("force", .bool), ("delta", .int)])
    try fixture.set("attempts", "2")
    try fixture.set("limit", "3")
    try fixture.set("pin", "1234")
    try fixture.set("delta", "-5")
    #expect(fixture.context == [2, 0, 3])
    #expect(fixture.parameters == [1234, 0, UInt64(bitPattern: -5)])
    #expect(try fixture.evaluate("attempts + 1 >= limit") == 1)
    #expect(try fixture.evaluate("pin == 1234 and not locked") == 1)
    #expect(try fixture.evaluate("attempts + delta") == -3)
    #expect(try fixture.evaluate("limit - attempts * pin") == 3 - 2 * 1234)
    #expect(try fixture.evaluate("force or locked") == 0)
    try fixture.set("force", "true")
    #expect(try fixture.evaluate("force or locked") == 1)
    #expect(try fixture.evaluate("force") == 1)
    #expect(try fixture.evaluate("delta") == -5)
  }

  @Test func stringEquality() throws {
    var fixture = ExpressionFixture(
      context: [("user", .string(max: 16)), ("long", .string(max: 64))],
      parameters: [("name", .string(max: 32)), ("code", .string(max: 2))])
    try fixture.set("user", "alice")
    try fixture.set("name", "alice")
    try fixture.set("long", String(repeating: "é", count: 30))
    #expect(try fixture.evaluate("user == name") == 1)
    #expect(try fixture.evaluate("user != name") == 0)
    #expect(try fixture.evaluate("user == 'alice'") == 1)
    #expect(try fixture.evaluate("'alice' == name") == 1)
    #expect(try fixture.evaluate("user == 'alicE'") == 0)
    #expect(try fixture.evaluate("user == 'alic'") == 0)
    #expect(try fixture.evaluate("user == 'alice '") == 0)
    #expect(try fixture.evaluate("code == ''") == 1)
    #expect(try fixture.evaluate("code != ''") == 0)
    #expect(try fixture.evaluate("long == '\(String(repeating: "é", count: 30))'") == 1)
    #expect(try fixture.evaluate("long == '\(String(repeating: "é", count: 29))e'") == 0)
    try fixture.set("name", "alice and carol")
    try fixture.set("user", "alice and caro")
    #expect(try fixture.evaluate("user == name") == 0)
    try fixture.set("user", "alice and caroL")
    #expect(try fixture.evaluate("user == name") == 0)
    try fixture.set("user", "alice and carol")
    #expect(try fixture.evaluate("user == name") == 1)
    #expect(try fixture.evaluate("user == 'alice and carol' and name == user") == 1)
  }

  @Test func stringEqualityIgnoresWhatFollowsTheBytes() throws {
    var fixture = ExpressionFixture(context: [("a", .string(max: 16)), ("b", .string(max: 16))])
    try fixture.set("a", "abc")
    try fixture.set("b", "abc")
    fixture.context[1] = 0xDEAD  // garbage after the bytes of a and b
    fixture.context[3] |= 0xFF << 56
    #expect(try fixture.evaluate("a == b") == 1)
    #expect(try fixture.evaluate("a == 'abc'") == 1)
  }

  @Test func aCorruptLengthFailsTheEvaluation() throws {
    var fixture = ExpressionFixture(context: [("a", .string(max: 8)), ("b", .string(max: 8))])
    fixture.context[0] = 60
    fixture.context[2] = 60
    #expect(try fixture.evaluate("a == b") == nil)
    #expect(try fixture.evaluate("a == ''") == 0, "different lengths differ, whatever they are")
  }

  @Test func assignmentsWriteTheVariablesWords() throws {
    var fixture = ExpressionFixture(
      context: [("attempts", .int), ("user", .string(max: 16)), ("locked", .bool)],
      parameters: [("name", .string(max: 8)), ("pin", .int)])
    try fixture.set("attempts", "41")
    try fixture.set("name", "bob")
    var builder = ExpressionProgramBuilder()
    let scope = fixture.scope
    let increment = try builder.compile(
      "attempts + 1", as: .int, for: .assignment(variable: "attempts"), in: scope)
    let user = try builder.compile(
      "name", as: .string(max: 16), for: .assignment(variable: "user"), in: scope)
    let literal = try builder.compile(
      "'carol'", as: .string(max: 16), for: .assignment(variable: "user"), in: scope)
    let lock = try builder.compile(
      "attempts >= 3", as: .bool, for: .assignment(variable: "locked"), in: scope)
    let overflow = try builder.compile(
      "attempts * 9223372036854775807", as: .int, for: .assignment(variable: "attempts"),
      in: scope)
    let program = builder.finish()

    var word: [UInt64] = [0]
    #expect(fixture.write(increment, in: program, to: &word))
    #expect(word == [42])
    #expect(fixture.write(lock, in: program, to: &word))
    #expect(word == [1])
    word = [7]
    #expect(!fixture.write(overflow, in: program, to: &word))
    #expect(word == [7], "a failed write leaves the destination unchanged")

    var string = [UInt64](repeating: .max, count: 3)
    #expect(fixture.write(user, in: program, to: &string))
    #expect(string == (try stringWords("bob", max: 16)))
    #expect(string[1] == 0 && string[2] == 0, "unused bytes are zeroed")
    string = [UInt64](repeating: .max, count: 3)
    #expect(fixture.write(literal, in: program, to: &string))
    #expect(string == (try stringWords("carol", max: 16)))
    #expect(ValueType.string(max: 16).format(string) == "carol")

    // Garbage after the parameter's bytes is not copied.
    fixture.parameters[0] |= 0xAB << 40
    fixture.parameters[1] = .max
    #expect(fixture.write(user, in: program, to: &string))
    #expect(string == (try stringWords("bob", max: 16)))
    #expect(fixture.evaluate(user, in: program) == nil, "a string has no int value")
  }

  @Test func stringWritesOfEveryLength() throws {
    for length in 0...64 {
      let text = String(repeating: "x", count: length)
      var fixture = ExpressionFixture(parameters: [("p", .string(max: 64))])
      try fixture.set("p", text)
      var builder = ExpressionProgramBuilder()
      let value = try builder.compile("p", in: fixture.scope)
      let literal = try builder.compile(
        "'\(text)'", as: .string(max: 64), for: .guard, in: fixture.scope)
      let program = builder.finish()
      for expression in [value, literal] {
        var words = [UInt64](repeating: .max, count: 9)
        #expect(fixture.write(expression, in: program, to: &words))
        #expect(words == (try stringWords(text, max: 64)), "\(length)")
      }
    }
  }

  @Test func aCorruptLengthFailsAWrite() throws {
    var fixture = ExpressionFixture(context: [("a", .string(max: 8))])
    fixture.context[0] = 9
    var builder = ExpressionProgramBuilder()
    let copy = try builder.compile("a", in: fixture.scope)
    let program = builder.finish()
    var words: [UInt64] = [5, 5]
    #expect(!fixture.write(copy, in: program, to: &words))
    #expect(words == [5, 5])
  }

  @Test func manyExpressionsShareOneProgram() throws {
    var fixture = ExpressionFixture(context: [("n", .int)])
    var builder = ExpressionProgramBuilder()
    let expressions = try (0..<50).map { k in
      try builder.compile(
        "n * \(k) + \(k) == \(k * 3 + k)", as: .bool, for: .guard, in: fixture.scope)
    }
    let program = builder.finish()
    try fixture.set("n", "3")
    for expression in expressions {
      #expect(fixture.evaluate(expression, in: program) == 1)
    }
    try fixture.set("n", "4")
    #expect(expressions.dropFirst().allSatisfy { fixture.evaluate($0, in: program) == 0 })
  }
}
