import Testing

@testable import MillraceHost

/// The syntax pass that locates JSON errors and finds repeated keys.
@Suite struct JSONSyntaxCheckTests {
  static let failures: [(String, Int, Int, String)] = [
    ("{\"a\": 1,}", 1, 9, #"trailing comma before "}""#),
    ("[1, 2,\n]", 2, 1, #"trailing comma before "]""#),
    ("{\"a\" 1}", 1, 6, #"expected ":" after the key, found character "1""#),
    ("{\n  \"é\": tru }", 2, 8, #"expected a value, found character "t""#),
    ("{\"a\": 01}", 1, 7, "invalid number"),
    ("{\"a\": 1.}", 1, 7, "invalid number"),
    ("\"abc", 1, 5, "unterminated string"),
    ("\"a\\x\"", 1, 4, "invalid escape in a string"),
    ("\"\\ud800\"", 1, 8, "unpaired surrogate escape"),
    ("{} {}", 1, 4, #"unexpected character "{" after the JSON value"#),
    ("{1: 2}", 1, 2, #"expected a string key, found character "1""#),
    (String(repeating: "[", count: 200), 1, 129, "nested more than 128 deep"),
  ]

  @Test(arguments: failures)
  func failuresAreLocated(text: String, line: Int, column: Int, message: String) {
    let result = JSONSyntaxCheck.check(Array(text.utf8))
    #expect(result.failure == JSONSyntaxCheck.Failure(line: line, column: column, message: message))
  }

  @Test func validDocumentsPass() {
    for text in [
      #"{"a": [1, -2.5e3, true, false, null, "x\"\u00e9\ud83d\ude00"], "b": {}}"#, " [] ", "0",
    ] {
      #expect(JSONSyntaxCheck.check(Array(text.utf8)).failure == nil, "\(text)")
    }
  }

  @Test func repeatedKeysAreFoundWithTheirPaths() {
    let text = #"{"a": 1, "b": [{"c": 1, "c": 2}], "a": 3, "\u0062": 4}"#
    let result = JSONSyntaxCheck.check(Array(text.utf8))
    #expect(result.failure == nil)
    #expect(result.duplicateKeys.map(\.description) == ["b[0].c", "a", "b"])
  }
}
