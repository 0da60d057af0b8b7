import Testing

@testable import MillraceHost

/// The expression grammar: precedence, literals, and errors that say what and where.
@Suite struct ExpressionParserTests {
  private func parse(_ text: String) throws -> String {
    try ExpressionParser.parse(text).parenthesized()
  }

  private func error(_ text: String) -> String? {
    do {
      _ = try ExpressionParser.parse(text)
      return nil
    } catch {
      return error.description
    }
  }

  @Test(arguments: [
    ("1 + 2 * 3 == 7", "((1 + (2 * 3)) == 7)"),
    ("not a and b", "((not a) and b)"),
    ("a or b and c", "(a or (b and c))"),
    ("not a == b", "(not (a == b))"),
    ("not not a", "(not (not a))"),
    ("a - b - c", "((a - b) - c)"),
    ("a / b % c * d", "(((a / b) % c) * d)"),
    ("-a * b", "((-a) * b)"),
    ("- -a", "(-(-a))"),
    ("-2 * 3", "(-2 * 3)"),
    ("a - -2", "(a - -2)"),
    ("(1 + 2) * 3", "((1 + 2) * 3)"),
    ("a < b + 1 and c >= 2 or d != e", "(((a < (b + 1)) and (c >= 2)) or (d != e))"),
    ("(a == b) == c", "((a == b) == c)"),
    ("x<=1", "(x <= 1)"),
    ("\tx\n>\r1 ", "(x > 1)"),
    ("true or false", "(true or false)"),
    ("_a1 == A_2", "(_a1 == A_2)"),
    ("andy or notice", "(andy or notice)"),
  ])
  func precedence(text: String, tree: String) throws {
    #expect(try parse(text) == tree)
  }

  @Test func literals() throws {
    let syntax = try ExpressionParser.parse("9223372036854775807")
    #expect(syntax.nodes == [.integer(.max)])
    #expect(try ExpressionParser.parse("-9223372036854775808").nodes == [.integer(.min)])
    #expect(
      try ExpressionParser.parse(#"'it\'s a \\ back'"#).nodes == [
        .string(Array(#"it's a \ back"#.utf8))
      ])
    #expect(try ExpressionParser.parse("''").nodes == [.string([])])
    #expect(try ExpressionParser.parse("'é'").nodes == [.string(Array("é".utf8))])
    #expect(try ExpressionParser.parse("'\(String(repeating: "a", count: 64))'").nodes.count == 1)
  }

  @Test(arguments: [
    ("", "column 1: expected an operand, found the end"),
    ("   ", "column 4: expected an operand, found the end"),
    ("1 +", "column 4: expected an operand, found the end"),
    ("(1 + )", "column 6: expected an operand, found \")\""),
    ("(1 + 2", "column 7: expected \")\", found the end"),
    ("1 + 2)", "column 6: unmatched \")\""),
    ("a b", "column 3: expected an operator, found \"b\""),
    ("a and or b", "column 7: expected an operand, found \"or\""),
    ("not", "column 4: expected an operand, found the end"),
    ("a < b < c", "column 7: \"<\" cannot follow a comparison; join comparisons with \"and\""),
    ("a == b != c", "column 8: \"!=\" cannot follow a comparison; join comparisons with \"and\""),
    ("a = 1", "column 3: unexpected character \"=\"; compare with \"==\""),
    ("!a", "column 1: unexpected character \"!\"; negate with \"not\""),
    ("a && b", "column 3: unexpected character \"&\"; write \"and\""),
    ("a || b", "column 3: unexpected character \"|\"; write \"or\""),
    ("a == \"x\"", "column 6: unexpected character \"\"\"; strings are written in single quotes"),
    ("a $ b", "column 3: unexpected character \"$\""),
    ("'é' == é", "column 8: unexpected character \"é\""),
    ("9223372036854775808", "column 1: integer literal out of the 64-bit range"),
    ("1 - 9223372036854775808", "column 5: integer literal out of the 64-bit range"),
    ("99999999999999999999", "column 1: integer literal out of the 64-bit range"),
    ("12ab", "column 1: invalid number \"12ab\""),
    ("x == 'abc", "column 6: unterminated string"),
    (#"x == 'a\nb'"#, #"column 8: unknown escape "\n" (only \' and \\)"#),
    (
      "x == '\(String(repeating: "a", count: 65))'", "column 6: string literal longer than 64 bytes"
    ),
  ])
  func errors(text: String, message: String) {
    #expect(error(text) == message)
  }

  @Test func identifiers() {
    for name in ["a", "_", "attempts", "A_1", "user_name", "andy"] {
      #expect(ExpressionIdentifier.isIdentifier(name), "\(name)")
    }
    for name in ["", "1a", "a.b", "a-b", "a:b", "é", "and", "or", "not", "true", "false", "a b"] {
      #expect(!ExpressionIdentifier.isIdentifier(name), "\(name)")
    }
  }
}
