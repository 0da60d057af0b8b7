import MillraceDrawing
import Testing

@testable import MillraceHost

/// The one reading of a machine file's text: syntax errors located, repeated keys found, and
/// each read of a value reporting the wrong JSON type or number at its path.
@Suite struct MachineFileReaderTests {
  /// The problems reading `text` with `read` gives (as `t.json: path: message`), or the value.
  func read<T>(_ text: String, _ read: (JSONField) -> T?) -> Result<T, MachineFileErrors> {
    do throws(MachineFileErrors) {
      return .success(try MachineFileReader.read(Array(text.utf8), file: "t.json", read))
    } catch {
      return .failure(error)
    }
  }

  /// The problems reading `text` with `read` reports, as users see them (none if it reads).
  func problems<T>(_ text: String, _ read: (JSONField) -> T?) -> [String] {
    guard case .failure(let error) = self.read(text, read) else { return [] }
    return error.errors.map(\.description)
  }

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
  func syntaxErrorsAreLocatedAndNothingElseIsRead(
    text: String, line: Int, column: Int, message: String
  ) {
    var called = false
    let found = problems(text) { _ in called = true }
    #expect(found == ["t.json: invalid JSON at line \(line), column \(column): \(message)"])
    #expect(!called)
  }

  @Test func validDocumentsAreRead() throws {
    for text in [
      #"{"a": [1, -2.5e3, true, false, null, "x\"\u00e9\ud83d\ude00"], "b": {}}"#, " [] ", "0",
    ] {
      #expect(try read(text) { $0.value }.get() == JSONParser.parse(text), "\(text)")
    }
  }

  @Test func repeatedKeysComeFirstWithTheirPathsAndTheFirstMemberIsRead() {
    let text = #"{"a": 1, "b": [{"c": 1, "c": 2}], "a": "x", "\u0062": 4, "d": 5}"#
    let found = problems(text) { field in
      let reader = FieldReader(field, known: ["a", "b"])
      return reader.string("a")
    }
    #expect(
      found == [
        "t.json: b[0].c: duplicate key", "t.json: a: duplicate key", "t.json: b: duplicate key",
        #"t.json: d: unknown key; expected one of "a", "b""#, "t.json: a: expected a string",
      ])
  }

  /// Each read names the JSON type it wanted, and says so when it found `null`.
  static let mismatches: [(String, [String])] = [
    (
      "null",
      [
        "a string, found null", "true or false, found null", "a list, found null",
        "a number, found null", "a number, found null", "an object, found null",
      ]
    ),
    ("true", ["a string", "a list", "a number", "a number", "an object"]),
    ("1", ["a string", "true or false", "a list", "an object"]),
    (#""1""#, ["true or false", "a list", "a number", "a number", "an object"]),
    ("[]", ["a string", "true or false", "a number", "a number", "an object"]),
    ("{}", ["a string", "true or false", "a list", "a number", "a number"]),
  ]

  @Test(arguments: mismatches)
  func everyReadReportsTheWrongType(value: String, expected: [String]) {
    let found = problems(#"{"v": \#(value)}"#) { root -> Bool? in
      guard let field = root.member("v") else { return nil }
      _ = field.string()
      _ = field.bool()
      _ = field.elements()
      _ = field.double()
      _ = field.wholeNumber()
      _ = FieldReader(field, known: [])
      return true
    }
    #expect(found == expected.map { "t.json: v: expected \($0)" })
  }

  static let doubles: [(String, Double?, String?)] = [
    ("65535", 65535, nil), ("-2.5e3", -2500, nil), ("0e-999", 0, nil), ("-0.0", 0, nil),
    ("4.9e-324", 4.9e-324, nil), ("1e400", nil, "number out of range"),
    ("-1e400", nil, "number out of range"), ("1e-400", nil, "number out of range"),
  ]

  @Test(arguments: doubles)
  func numbersOutOfTheDoubleRangeAreReported(text: String, value: Double?, message: String?) {
    let result = read(text) { $0.double() }
    #expect((try? result.get()) == value)
    #expect(problems(text) { $0.double() } == (message.map { ["t.json: \($0)"] } ?? []))
  }

  static let wholeNumbers: [(String, Int64?, String?)] = [
    ("9223372036854775807", .max, nil), ("-9223372036854775808", .min, nil), ("-0", 0, nil),
    ("1.0", 1, nil), ("1e2", 100, nil), ("100e-2", 1, nil), ("1e-400", 0, nil),
    ("1.5", nil, "must be a whole number"), ("-0.5e1", -5, nil),
    ("9223372036854775808", nil, "outside the 64-bit integers"),
    ("-9223372036854775809", nil, "outside the 64-bit integers"),
    ("1e19", nil, "outside the 64-bit integers"), ("1e400", nil, "number out of range"),
  ]

  @Test(arguments: wholeNumbers)
  func wholeNumbersFitIn64Bits(text: String, value: Int64?, message: String?) {
    #expect((try? read(text) { $0.wholeNumber() }.get()) == value)
    #expect(problems(text) { $0.wholeNumber() } == (message.map { ["t.json: \($0)"] } ?? []))
  }

  /// A part that gives up without saying why is reported, so nothing is dropped silently.
  @Test func aReadThatGivesUpSilentlyIsReported() {
    #expect(
      problems(#"{"a": [1, 2]}"#) { $0.member("a")?.elements()?[1].read { _ in Int?.none } }
        == ["t.json: a[1]: invalid value"])
    #expect(problems("{}") { _ in Int?.none } == ["t.json: invalid value"])
  }

  /// An initial value written `null` is not the variable's type: reported at `initial`.
  @Test func aNullInitialValueIsReportedAtItsField() {
    let json = machine(
      #"{ "on": "go", "from": "a" }"#,
      extra: #""context": { "b": { "type": "bool", "initial": null }, "#
        + #""n": { "type": "int", "initial": null }, "#
        + #""s": { "type": "string", "initial": null } },"#)
    #expect(
      errors(json) == [
        "t.json: context.b.initial: expected true or false, found null",
        "t.json: context.n.initial: expected a number, found null",
        "t.json: context.s.initial: expected a string, found null",
      ])
  }

  /// Every element of `args` and every value of `assign` that is not a string is reported,
  /// in file order.
  @Test func everyBadStringOfAListOrObjectIsReported() {
    let json = machine(
      #"{ "on": "go", "from": "a", "assign": { "z": 1, "y": "1", "x": null }, "#
        + #""effects": [ { "emit": "o", "args": [ "1", 2, null ] } ] }"#)
    #expect(
      errors(json) == [
        "t.json: transitions[0].effects[0].args[1]: expected a string",
        "t.json: transitions[0].effects[0].args[2]: expected a string, found null",
        "t.json: transitions[0].assign.z: expected a string",
        "t.json: transitions[0].assign.x: expected a string, found null",
      ])
  }

  /// `JSONParser.maxDepth` bounds how deep a file may nest, wherever the nesting is: the file
  /// is the first level, so 127 lists inside it are read and 128 are refused.
  @Test func deeplyNestedFilesAreRefusedNotOverflowed() {
    let deep = String(repeating: "[", count: 127) + String(repeating: "]", count: 127)
    #expect(
      errors(machine("", extra: #""notes": \#(deep),"#)) == [
        #"t.json: notes: unknown key; expected one of "context", "final", "initial", "inputs", "kind", "migrate", "outputs", "queues", "states", "transitions""#
      ])
    let deeper = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
    #expect(
      errors(machine("", extra: #""notes": \#(deeper),"#)) == [
        "t.json: invalid JSON at line 1, column 168: nested more than 128 deep"
      ])
  }
}
