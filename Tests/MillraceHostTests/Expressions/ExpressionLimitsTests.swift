import Testing

@testable import MillraceHost

/// Limits instead of crashes: long or deeply nested text, too many intermediate values, and
/// garbage.
@Suite struct ExpressionLimitsTests {
  let fixture = ExpressionFixture(context: [("attempts", .int), ("flag", .bool), ("n", .int)])

  @Test func nestingDepth() throws {
    let deepest = String(repeating: "(", count: 32) + "1" + String(repeating: ")", count: 32)
    #expect(try ExpressionFixture().evaluate(deepest) == 1)
    let tooDeep = "(" + deepest + ")"
    #expect(fixture.error(tooDeep) == "column 33: nested too deeply (at most 32 levels)")
    #expect(
      fixture.error(String(repeating: "not ", count: 33) + "flag")
        == "column 129: nested too deeply (at most 32 levels)")
    #expect(fixture.error(String(repeating: "not ", count: 32) + "flag") == nil)
    #expect(
      fixture.error(String(repeating: "- ", count: 33) + "attempts")
        == "column 65: nested too deeply (at most 32 levels)")
    #expect(
      fixture.error(
        String(repeating: "not (", count: 17) + "flag" + String(repeating: ")", count: 17))
        == "column 81: nested too deeply (at most 32 levels)")
  }

  @Test func textLength() throws {
    let longest = "1" + String(repeating: " + 1", count: 255) + "   "
    #expect(longest.utf8.count == 1024)
    #expect(try ExpressionFixture().evaluate(longest) == 256)
    #expect(fixture.error(longest + " ") == "expression longer than 1024 bytes")
  }

  @Test func longChainsNeedNoNesting() throws {
    let chain = Array(repeating: "attempts == 1", count: 50).joined(separator: " or ")
    var fixture = fixture
    #expect(try fixture.evaluate(chain) == 0)
    try fixture.set("attempts", "1")
    #expect(try fixture.evaluate(chain) == 1)
  }

  @Test func temporaries() throws {
    var fixture = fixture
    try fixture.set("n", "1")
    // 2 * 31 + 2 = 64 values aside: the most an evaluation holds.
    #expect(try fixture.evaluate(temporariesHungry(levels: 31)) == 1)
    #expect(try fixture.evaluate(temporariesHungry(levels: 30)) == 1)
    #expect(
      fixture.error(temporariesHungry(levels: 32))
        == "too complex: more than 64 intermediate values")
  }

  /// Random bytes and random sequences of the language's tokens are refused or compiled,
  /// never crash, and what compiles evaluates.
  @Test func garbage() {
    var generator = SystemRandomNumberGenerator()
    let pieces = [
      "(", ")", "(", ")", "not ", "and", "or", "-", "+", "*", "/", "%", "==", "!=", "<", "<=",
      ">", ">=", "1", "0", "9223372036854775807", "9223372036854775808", "true", "false",
      "attempts", "flag", "'a'", "'", "\\", " ", "é", "=", "!", "x",
    ]
    for _ in 0..<5_000 {
      let count = Int.random(in: 0...40, using: &generator)
      let text: String
      if Bool.random(using: &generator) {
        text = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined(
          separator: Bool.random(using: &generator) ? " " : "")
      } else {
        let bytes = (0..<count).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
        text = String(decoding: bytes, as: UTF8.self)
      }
      var builder = ExpressionProgramBuilder()
      if let expression = try? builder.compile(text, in: fixture.scope) {
        let program = builder.finish()
        if expression.type == .int || expression.type == .bool {
          _ = fixture.evaluate(expression, in: program)
        }
      }
    }
  }

  @Test func garbageAtTheLimits() throws {
    for text in [
      String(repeating: "(", count: 1024), String(repeating: "not ", count: 256),
      String(repeating: "-", count: 1024), String(repeating: "'", count: 1024),
      String(repeating: "1 <", count: 341),
      String(repeating: "é", count: 512), String(repeating: "(", count: 1025),
    ] {
      #expect(fixture.error(text) != nil, "\(text.prefix(20))")
    }
    #expect(try ExpressionFixture().evaluate(String(repeating: "1+", count: 511) + "1") == 512)
  }
}
