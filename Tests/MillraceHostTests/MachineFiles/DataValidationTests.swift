import Foundation
import Testing

@testable import MillraceHost

/// Every check of a machine file's data (v2: context variables, input parameters, guards,
/// assignments, effect arguments and output values), each with the exact message a user sees,
/// and which files compile to a kind with data.
@Suite struct DataValidationTests {
  /// Context `n` (int), `s` (string of at most 4 bytes), `b` (bool); inputs `go` and
  /// `put(v: int, w: string of at most 8 bytes)`.
  static let declarations = #"""
    "context": { "n": { "type": "int" }, "s": { "type": "string", "max": 4 },
      "b": { "type": "bool" } },
    "inputs": [ "go", { "name": "put", "params": [ { "name": "v", "type": "int" },
      { "name": "w", "type": "string", "max": 8 } ] } ],
    """#

  /// A machine file with `declarations`, `extra` members and `transitions`.
  static func data(_ transitions: String, extra: String = "") -> String {
    machine(transitions, extra: declarations + extra)
  }

  static let unknownNames: [(String, [String])] = [
    (
      data(#"{ "on": "go", "from": "a", "guard": "m > 0" }"#),
      [#"t.json: transitions[0].guard: column 1: unknown name "m""#]
    ),
    (
      data(#"{ "on": "go", "from": "a", "assign": { "n": "n + m" } }"#),
      [#"t.json: transitions[0].assign.n: column 5: unknown name "m""#]
    ),
    (
      data(#"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": ["n", "q"] } ] }"#),
      [#"t.json: transitions[0].effects[0].args[1]: column 1: unknown name "q""#]
    ),
    (
      data(#"{ "on": "go", "from": "a", "assign": { "zz": "1" } }"#),
      [#"t.json: transitions[0].assign.zz: unknown context variable "zz""#]
    ),
    // A parameter is not a variable: it cannot be assigned.
    (
      data(#"{ "on": "put", "from": "a", "assign": { "v": "1" } }"#),
      [#"t.json: transitions[0].assign.v: unknown context variable "v""#]
    ),
    // Parameters are in scope only in the rows of their input: not in another input's, not
    // in a `"*"` row, not in a state's entry or exit effects.
    (
      data(#"{ "on": "go", "from": "a", "guard": "v > 0" }"#),
      [#"t.json: transitions[0].guard: column 1: unknown name "v""#]
    ),
    (
      data(#"{ "on": "*", "from": "a", "guard": "v > 0" }"#),
      [#"t.json: transitions[0].guard: column 1: unknown name "v""#]
    ),
    (
      data(
        #"{ "on": "put", "from": "a" }"#,
        extra: #""states": [ { "name": "a", "entry": [ { "emit": "o", "args": ["v"] } ] } ],"#),
      [#"t.json: states[0].entry[0].args[0]: column 1: unknown name "v""#]
    ),
  ]

  @Test(arguments: unknownNames)
  func namesInExpressionsMustBeKnown(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  static let types: [(String, [String])] = [
    (
      data(#"{ "on": "go", "from": "a", "guard": "n + 1" }"#),
      ["t.json: transitions[0].guard: a guard must be a bool, got int"]
    ),
    (
      data(#"{ "on": "go", "from": "a", "guard": "s" }"#),
      ["t.json: transitions[0].guard: a guard must be a bool, got string"]
    ),
    (
      data(#"{ "on": "go", "from": "a", "assign": { "s": "n", "n": "b" } }"#),
      [
        #"t.json: transitions[0].assign.n: "n" is an int; this value is a bool"#,
        #"t.json: transitions[0].assign.s: "s" is a string; this value is an int"#,
      ]
    ),
    // A string fits a variable when its maximum does: `w` may hold 8 bytes, `s` only 4.
    (
      data(#"{ "on": "put", "from": "a", "assign": { "s": "w" } }"#),
      [
        #"t.json: transitions[0].assign.s: "s" is a string of at most 4 bytes; "#
          + "this value can be up to 8 bytes"
      ]
    ),
    // A literal fits when its length does, in bytes ("é" takes two).
    (
      data(#"{ "on": "go", "from": "a", "assign": { "s": "'hello'" } }"#),
      [#"t.json: transitions[0].assign.s: "s" is a string of at most 4 bytes; 'hello' is 5 bytes"#]
    ),
    (
      data(#"{ "on": "go", "from": "a", "assign": { "s": "'abcé'" } }"#),
      [#"t.json: transitions[0].assign.s: "s" is a string of at most 4 bytes; 'abcé' is 5 bytes"#]
    ),
    // Arguments of `send` are the input's parameters, each checked like an assignment.
    (
      data(#"{ "on": "go", "from": "a", "effects": [ { "send": "put", "args": ["'x'", "2"] } ] }"#),
      [
        #"t.json: transitions[0].effects[0].args[0]: parameter "v" is an int; this value is a string"#,
        #"t.json: transitions[0].effects[0].args[1]: parameter "w" is a string; this value is an int"#,
      ]
    ),
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "send": "put", "args": ["1", "'123456789'"] } ] }"#
      ),
      [
        #"t.json: transitions[0].effects[0].args[1]: parameter "w" is a string of at most 8 bytes; "#
          + "'123456789' is 9 bytes"
      ]
    ),
    // Operators: arithmetic and ordering on ints, `==` on one type, `not` on a bool.
    (
      data(
        #"{ "on": "go", "from": "a", "guard": "b == 1", "assign": { "n": "b + 1", "b": "not 1" } }"#
      ),
      [
        #"t.json: transitions[0].guard: column 3: "==" needs two values of the same type, got bool and int"#,
        #"t.json: transitions[0].assign.b: column 1: "not" needs a bool, got int"#,
        #"t.json: transitions[0].assign.n: column 3: "+" needs two ints, got bool and int"#,
      ]
    ),
    (
      data(#"{ "on": "go", "from": "a", "guard": "s < 'a'", "assign": { "n": "-b" } }"#),
      [
        #"t.json: transitions[0].guard: column 3: "<" needs two ints, got string and string"#,
        #"t.json: transitions[0].assign.n: column 1: "-" needs an int, got bool"#,
      ]
    ),
  ]

  @Test(arguments: types)
  func expressionsMustHaveTheirPlacesType(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  static let names: [(String, [String])] = [
    (
      machine(
        #"{ "on": "go", "from": "a" }"#,
        extra: #""inputs": [ "go", { "name": "p", "params": [ { "name": "not", "type": "int" }, "#
          + #"{ "name": "true", "type": "int" }, { "name": "a-b", "type": "int" }, "#
          + #"{ "name": "1x", "type": "int" } ] } ],"#),
      [
        #"t.json: inputs[1].params[0].name: "not" is a word of the expression language; it cannot name a parameter"#,
        #"t.json: inputs[1].params[1].name: "true" is a word of the expression language; it cannot name a parameter"#,
        #"t.json: inputs[1].params[2].name: invalid parameter name "a-b" (letters, digits and "_", not starting with a digit)"#,
        #"t.json: inputs[1].params[3].name: invalid parameter name "1x" (letters, digits and "_", not starting with a digit)"#,
      ]
    ),
    (
      machine(
        #"{ "on": "go", "from": "a" }"#,
        extra: #""context": { "v": { "type": "int" } }, "#
          + #""inputs": [ "go", { "name": "p", "params": [ { "name": "v", "type": "int" } ] } ],"#),
      [
        #"t.json: inputs[1].params[0].name: parameter "v" has the name of a context variable; rename one"#
      ]
    ),
    (
      machine(
        #"{ "on": "go", "from": "a" }"#,
        extra: #""inputs": [ "go", { "name": "p", "params": [ { "name": "v", "type": "int" }, "#
          + #"{ "name": "v", "type": "bool" } ] } ],"#),
      [#"t.json: inputs[1].params[1]: duplicate parameter "v""#]
    ),
  ]

  @Test(arguments: names)
  func variableAndParameterNamesMustBeUsableInExpressions(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  /// A variable's name is checked as a parameter's is, at the variable's own field.
  @Test func variableNamesMustBeUsableInExpressions() {
    let json = machine(
      #"{ "on": "go", "from": "a" }"#,
      extra: #""context": { "and": { "type": "int" }, "a-b": { "type": "int" }, "#
        + #""false": { "type": "bool" }, "or": { "type": "bool" } },"#)
    let messages = [
      #"invalid variable name "a-b" (letters, digits and "_", not starting with a digit)"#,
      #""and" is a word of the expression language; it cannot name a variable"#,
      #""false" is a word of the expression language; it cannot name a variable"#,
      #""or" is a word of the expression language; it cannot name a variable"#,
    ]
    let paths = ["a-b", "and", "false", "or"].map { JSONPath.root.key("context").key($0) }
    #expect(errors(json) == zip(paths, messages).map { "t.json: \($0): \($1)" })
  }

  static let arguments: [(String, [String])] = [
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "send": "put", "args": ["1"] }, "#
          + #"{ "every": "1s", "send": "put", "args": ["1"] }, "#
          + #"{ "after": "1s", "send": "put", "args": ["1", "'a'", "3"] } ] }"#),
      [
        #"t.json: transitions[0].effects[0].args: input "put" takes 2 arguments (v: int, w: string); got 1"#,
        #"t.json: transitions[0].effects[1].args: input "put" takes 2 arguments (v: int, w: string); got 1"#,
        #"t.json: transitions[0].effects[2].args: input "put" takes 2 arguments (v: int, w: string); got 3"#,
      ]
    ),
    // Without "args", an input that takes parameters is refused too (after the effects with
    // arguments: the check runs once every argument list was compiled).
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "after": "1s", "send": "put" }, "#
          + #"{ "send": "put", "args": ["1"] } ] }"#),
      [
        #"t.json: transitions[0].effects[1].args: input "put" takes 2 arguments (v: int, w: string); got 1"#,
        #"t.json: transitions[0].effects[0].send: input "put" takes 2 arguments (v: int, w: string); got 0"#,
      ]
    ),
    // An output's values are typed by its first `emit` with "args"; every other one must match.
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": ["n", "s"] }, "#
          + #"{ "emit": "o", "args": ["n", "s", "b"] }, { "emit": "o", "args": ["s", "n"] }, "#
          + #"{ "emit": "o" } ] }"#),
      [
        #"t.json: transitions[0].effects[1].args: output "o" carries 2 values (set by its first emit, transitions[0].effects[0]); got 3"#,
        #"t.json: transitions[0].effects[2].args[0]: value 1 of output "o" is an int; this value is a string"#,
        #"t.json: transitions[0].effects[2].args[1]: value 2 of output "o" is a string; this value is an int"#,
        #"t.json: transitions[0].effects[3].emit: output "o" carries 2 values (set by its first emit, transitions[0].effects[0]); got 0"#,
      ]
    ),
    // A later value fits when it is no longer than the first's.
    (
      data(
        #"{ "on": "put", "from": "a", "effects": [ { "emit": "o", "args": ["s"] }, "#
          + #"{ "emit": "o", "args": ["w"] } ] }"#),
      [
        #"t.json: transitions[0].effects[1].args[0]: value 1 of output "o" is a string of at most 4 bytes; "#
          + "this value can be up to 8 bytes"
      ]
    ),
    // "First" means the rows in file order, then the states' entry and exit effects.
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": ["n"] } ] }"#,
        extra: #""states": [ { "name": "a", "entry": [ { "emit": "o", "args": ["s"] } ] } ],"#),
      [
        #"t.json: states[0].entry[0].args[0]: value 1 of output "o" is an int; this value is a string"#
      ]
    ),
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "after": "1s", "send": "go", "id": "t" }, "#
          + #"{ "cancel": "t", "args": ["1"] } ] }"#),
      [
        #"t.json: transitions[0].effects[1].args: "args" applies only to "send", "after", "every" and "emit""#
      ]
    ),
    (
      data(#"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": "n" } ] }"#),
      ["t.json: transitions[0].effects[0].args: expected a list"]
    ),
  ]

  @Test(arguments: arguments)
  func argumentsMustFitTheirInputOrOutput(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  /// An input without parameters "takes no arguments", at load as in a `SEND`.
  @Test func argumentsToAnInputWithoutParameters() {
    let json = Self.data(
      #"{ "on": "go", "from": "a", "effects": [ { "every": "1s", "send": "go", "args": ["1"] } ] }"#
    )
    #expect(
      errors(json) == [
        #"t.json: transitions[0].effects[0].args: input "go" takes no arguments; got 1"#
      ])
  }

  /// An emit without "args" of an output of one value.
  @Test func anEmitWithoutValuesBeforeTheFirstWithValues() {
    let json = Self.data(
      #"{ "on": "go", "from": "a", "effects": [ { "emit": "o" }, { "emit": "o", "args": ["n"] } ] }"#
    )
    #expect(
      errors(json) == [
        #"t.json: transitions[0].effects[0].emit: output "o" carries 1 value (set by its first emit, transitions[0].effects[1]); got 0"#
      ])
  }

  static let declarationsOfTypes: [(String, [String])] = [
    (
      #"""
      "context": { "a": { "type": "float" }, "b": { "type": "int", "max": 4 },
        "c": { "type": "string", "max": 0 }, "d": { "type": "string", "max": 65 },
        "e": { "type": "bool", "max": 1 }, "f": { "max": 4 }, "g": { "type": "int", "maxx": 1 },
        "h": "int" },
      """#,
      [
        #"t.json: context.a.type: unknown type "float"; expected one of "int", "bool", "string""#,
        #"t.json: context.b.max: "max" applies only to "string""#,
        "t.json: context.c.max: must be a whole number from 1 to 64",
        "t.json: context.d.max: must be a whole number from 1 to 64",
        #"t.json: context.e.max: "max" applies only to "string""#,
        "t.json: context.f.type: missing (required)",
        #"t.json: context.g.maxx: unknown key; expected one of "initial", "max", "type""#,
        "t.json: context.h: expected an object",
      ]
    ),
    (
      #"""
      "context": { "a": { "type": "int", "initial": "1" }, "b": { "type": "bool", "initial": 1 },
        "c": { "type": "string", "max": 2, "initial": "abc" },
        "d": { "type": "string", "initial": 7 }, "e": { "type": "int", "initial": 1e30 } },
      """#,
      [
        "t.json: context.a.initial: expected a number",
        "t.json: context.b.initial: expected true or false",
        #"t.json: context.c.initial: longer than 2 bytes (the variable's "max")"#,
        "t.json: context.d.initial: expected a string",
        "t.json: context.e.initial: outside the 64-bit integers",
      ]
    ),
    (
      #"""
      "inputs": [ "go", { "name": "p", "params": [ { "name": "x", "type": "int", "max": 3 },
        { "name": "y", "type": "int", "mx": 3 }, { "type": "int" }, { "name": "z" },
        { "name": "t", "type": "text" } ] },
        { "name": "q" }, { "name": "r", "params": [], "extra": 1 } ],
      """#,
      [
        #"t.json: inputs[1].params[0].max: "max" applies only to "string""#,
        #"t.json: inputs[1].params[1].mx: unknown key; expected one of "max", "name", "type""#,
        "t.json: inputs[1].params[2].name: missing (required)",
        "t.json: inputs[1].params[3].type: missing (required)",
        #"t.json: inputs[1].params[4].type: unknown type "text"; expected one of "int", "bool", "string""#,
        "t.json: inputs[2].params: missing (required)",
        #"t.json: inputs[3].extra: unknown key; expected one of "name", "params""#,
      ]
    ),
  ]

  @Test(arguments: declarationsOfTypes)
  func variablesAndParametersDeclareTheirTypes(extra: String, expected: [String]) {
    #expect(errors(machine(#"{ "on": "go", "from": "a" }"#, extra: extra)) == expected)
  }

  /// A fractional initial value of an int is not a whole number; a whole one past Int64 is
  /// outside the range.
  @Test func aFractionalInitialInt() {
    let json = machine(
      #"{ "on": "go", "from": "a" }"#,
      extra: #""context": { "n": { "type": "int", "initial": 1.5 }, "#
        + #""m": { "type": "int", "initial": 1e19 } },"#)
    #expect(
      errors(json) == [
        "t.json: context.m.initial: outside the 64-bit integers",
        "t.json: context.n.initial: must be a whole number",
      ])
  }

  static let sizes: [(String, [String])] = [
    (
      machine(
        #"{ "on": "go", "from": "a" }"#,
        extra: #""inputs": [ "go", { "name": "p", "params": [ "#
          + #"{ "name": "a", "type": "string", "max": 64 }, "#
          + #"{ "name": "b", "type": "string", "max": 64 } ] } ],"#),
      [
        #"t.json: inputs: the parameters of "p": 144 bytes, more than 128 "#
          + "(an int or a bool takes 8, a string 1 + its max, rounded up to 8)"
      ]
    ),
    (
      data(
        #"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": [ "#
          + Array(repeating: #""s""#, count: 17).joined(separator: ", ") + " ] } ] }"),
      [
        #"t.json: transitions[0].effects[0].args: the values of "o": 136 bytes, more than 128 "#
          + "(an int or a bool takes 8, a string 1 + its max, rounded up to 8)"
      ]
    ),
  ]

  @Test(arguments: sizes)
  func argumentsAndValuesTakeAtMost128Bytes(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  /// A context of two strings of 64 bytes takes 2 × 72 bytes.
  @Test func aContextTakesAtMost128Bytes() {
    let json = machine(
      #"{ "on": "go", "from": "a" }"#,
      extra: #""context": { "a": { "type": "string", "max": 64 }, "#
        + #""b": { "type": "string", "max": 64 } },"#)
    #expect(
      errors(json) == [
        "t.json: context: the context: 144 bytes, more than 128 "
          + "(an int or a bool takes 8, a string 1 + its max, rounded up to 8)"
      ])
  }

  static let syntax: [(String, [String])] = [
    (
      data(
        #"{ "on": "go", "from": "a", "guard": "n > ", "#
          + #""assign": { "n": "(n + 1", "b": "n == = 1", "s": "'abc" } }"#),
      [
        "t.json: transitions[0].guard: column 5: expected an operand, found the end",
        #"t.json: transitions[0].assign.b: column 6: unexpected character "="; compare with "==""#,
        #"t.json: transitions[0].assign.n: column 7: expected ")", found the end"#,
        "t.json: transitions[0].assign.s: column 1: unterminated string",
      ]
    ),
    (
      data(#"{ "on": "go", "from": "a", "guard": "n < 1 < 2", "assign": { "n": "n $ 1" } }"#),
      [
        #"t.json: transitions[0].guard: column 7: "<" cannot follow a comparison; join comparisons with "and""#,
        #"t.json: transitions[0].assign.n: column 3: unexpected character "$""#,
      ]
    ),
    (
      data(#"{ "on": "go", "from": "a", "guard": "", "assign": { "n": "1 2", "s": "  " } }"#),
      [
        "t.json: transitions[0].guard: column 1: expected an operand, found the end",
        #"t.json: transitions[0].assign.n: column 3: expected an operator, found "2""#,
        "t.json: transitions[0].assign.s: column 3: expected an operand, found the end",
      ]
    ),
    // Columns count Unicode scalars: "é" is one column.
    (
      data(
        #"{ "on": "go", "from": "a", "guard": "s == 'é' $", "#
          + #""assign": { "n": "99999999999999999999" } }"#),
      [
        #"t.json: transitions[0].guard: column 10: unexpected character "$""#,
        "t.json: transitions[0].assign.n: column 1: integer literal out of the 64-bit range",
      ]
    ),
    (
      data(
        #"{ "on": "go", "from": "a", "guard": "\#(String(repeating: "(", count: 40))b"#
          + #"\#(String(repeating: ")", count: 40))" }"#),
      ["t.json: transitions[0].guard: column 33: nested too deeply (at most 32 levels)"]
    ),
    (
      data(
        #"{ "on": "go", "from": "a", "guard": "\#(String(repeating: "n + ", count: 300))1 > 0" }"#),
      ["t.json: transitions[0].guard: expression longer than 1024 bytes"]
    ),
    (
      data(#"{ "on": "go", "from": "a", "guard": true, "assign": { "n": 1 } }"#),
      [
        "t.json: transitions[0].guard: expected a string",
        "t.json: transitions[0].assign.n: expected a string",
      ]
    ),
    (
      data(#"{ "on": "go", "from": "a", "assign": [ "n" ] }"#),
      ["t.json: transitions[0].assign: expected an object"]
    ),
  ]

  @Test(arguments: syntax)
  func syntaxErrorsNameTheirColumn(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  /// Division by a constant zero is not a load error: the evaluation fails at run time (a
  /// guard is then false, an assignment rejects the input).
  @Test func arithmeticFailuresAreNotLoadErrors() {
    #expect(errors(Self.data(#"{ "on": "go", "from": "a", "guard": "n / 0 == 1" }"#)).isEmpty)
  }

  // MARK: Which files have data

  @Test func aFileWithoutDataCompilesToAKindWithoutData() throws {
    let flat = try compile(
      machine(
        #"{ "on": "go", "from": "a", "to": "b", "effects": [ { "emit": "o" } ] }, "#
          + #"{ "on": "go", "from": "b", "to": "a" }"#))
    #expect(flat.data == nil && flat.candidates == nil && flat.steps == nil)
    // Nesting, entry and exit effects and final states alone are not data: the kind is laid
    // out as steps, one per (input, leaf).
    let nested = try compile(
      #"""
      { "kind": "k", "initial": "on", "final": ["off"],
        "states": [ { "name": "on", "initial": "x", "states": ["x", "y"],
                      "entry": [ { "emit": "up" } ], "exit": [ { "after": "1s", "send": "go" } ] },
                    "off" ],
        "transitions": [ { "on": "go", "from": "x", "to": "y" }, { "on": "stop", "from": "on", "to": "off" } ] }
      """#)
    #expect(nested.data == nil && nested.candidates == nil && nested.steps != nil)
    // An input declared with an empty parameter list has no data either.
    let empty = try compile(
      machine(
        #"{ "on": "go", "from": "a" }"#, extra: #""inputs": [ { "name": "go", "params": [] } ],"#))
    #expect(empty.data == nil)
    let catalog = try KindCatalog(directory: TestData.examples)
    for kind in ["auth", "door", "toggle", "traffic-light", "media-player"] {
      #expect(catalog[kind: kind]?.data == nil, "\(kind)")
    }
    for kind in ["login", "circuit-breaker"] {
      #expect(catalog[kind: kind]?.data != nil, "\(kind)")
    }
  }

  @Test func anyDataMakesAKindWithData() throws {
    let uses = [
      #""context": { "n": { "type": "int" } },"#,
      #""inputs": [ { "name": "go", "params": [ { "name": "p", "type": "int" } ] } ],"#,
    ]
    for extra in uses {
      let definition = try compile(machine(#"{ "on": "go", "from": "a" }"#, extra: extra))
      #expect(definition.data != nil && definition.candidates != nil && definition.steps == nil)
    }
    let rows = [
      #"{ "on": "go", "from": "a", "guard": "1 == 1" }"#,
      #"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": ["1"] } ] }"#,
    ]
    for row in rows {
      #expect(try compile(machine(row)).data != nil)
    }
  }

  /// The word class of a kind is the smallest of 1, 2, 4, 8, 16 words that holds its context,
  /// every input's arguments and every output's values; 128 bytes is the limit, and fits.
  @Test func theWordClassHoldsTheLargestValues() throws {
    func words(_ extra: String, _ rows: String = #"{ "on": "go", "from": "a" }"#) throws -> Int? {
      try compile(machine(rows, extra: extra)).data?.words
    }
    #expect(try words(#""context": { "n": { "type": "int" } },"#) == 1)
    #expect(try words(#""context": { "s": { "type": "string", "max": 8 } },"#) == 2)
    #expect(
      try words(
        #""context": { "n": { "type": "int" } },"#,
        #"{ "on": "go", "from": "a", "effects": [ { "emit": "o", "args": ["n", "n", "true"] } ] }"#)
        == 4)
    #expect(
      try words(
        #""inputs": [ { "name": "go", "params": [ { "name": "s", "type": "string" } ] } ],"#)
        == 8)
    #expect(
      try words(
        #""context": { "a": { "type": "string", "max": 63 }, "#
          + #""b": { "type": "string", "max": 63 } },"#) == 16)
    let catalog = try KindCatalog(directory: TestData.examples)
    #expect(catalog[kind: "login"]?.data?.words == 4)
    #expect(catalog[kind: "circuit-breaker"]?.data?.words == 2)
    // A machine holds its leaf and its context; an input or output its index and its values:
    // 8 bytes and the word class's.
    #expect(MemoryLayout<DataState<DataWords1>>.stride == 16)
    #expect(MemoryLayout<DataState<DataWords4>>.stride == 40)
    #expect(MemoryLayout<DataState<DataWords16>>.stride == 136)
    #expect(MemoryLayout<DataMessage<DataWords4>>.stride == 40)
  }

  // MARK: Candidates

  /// Inside `p`: `l` and `m`; then `z`. The context `n` decides which guard holds.
  static let guarded = #"""
    { "kind": "k", "initial": "p", "context": { "n": { "type": "int" } },
      "states": [ { "name": "p", "initial": "l", "states": ["l", "m"] }, "z" ],
      "transitions": [
        { "on": "go", "from": "l", "guard": "n == 0", "to": "z" },
        { "on": "go", "from": "p", "guard": "n == 1", "to": "z" },
        { "on": "go", "from": ["l", "m"], "guard": "n == 2" },
        { "on": "go", "from": "l" },
        { "on": "go", "from": "l", "guard": "n == 4" },
        { "on": "go", "from": "p", "to": "z" },
        { "on": "go", "from": "m", "guard": "n == 6", "to": "l" },
        { "on": "back", "from": "z", "to": "m" } ] }
    """#

  @Test func candidatesListGuardedRowsInOrderAndEndAtTheFirstUnguarded() throws {
    let definition = try compile(Self.guarded)
    let candidates = try #require(definition.candidates)
    func found(_ input: String, _ state: String) -> ArraySlice<KindDefinition.Candidate> {
      candidates.steps(input: input, state: definition.states.index(of: state)!, in: definition)
    }
    func rows(_ input: String, in state: String) -> [Int32] { found(input, state).map(\.row) }
    func leaves(_ input: String, in state: String) -> [String] {
      found(input, state).map { $0.step.to.map { definition.states[$0] } ?? "stay" }
    }
    // In `l`: its own rows in file order, up to row 3, which has no guard; row 4 and the
    // parent's rows are never tried.
    #expect(rows("go", in: "l") == [0, 2, 3])
    #expect(leaves("go", in: "l") == ["z", "stay", "stay"])
    // In `m`: its own rows, then the parent's, up to the parent's unguarded row 5.
    #expect(rows("go", in: "m") == [2, 6, 1, 5])
    #expect(leaves("go", in: "m") == ["stay", "l", "z", "z"])
    // Only guarded rows: all of them, and the input is rejected when none holds.
    #expect(rows("back", in: "z") == [7])
    #expect(rows("go", in: "z") == [])
    // A compound state is never current: it has no candidates.
    #expect(rows("go", in: "p") == [])
    // The start input: one candidate per leaf, with no row.
    #expect(rows("(start)", in: "l") == [-1])
    #expect(
      definition.candidateRows(
        input: definition.inputs.index(of: "go")!, state: definition.states.index(of: "m")!
      ).map(\.row) == [2, 6, 1, 5])
  }

  /// A guarded `"*"` row belongs with the leaf's own rows: it is listed there once, not again
  /// at every ancestor.
  @Test func aGuardedAnyStateRowIsListedOnce() throws {
    let definition = try compile(
      #"""
      { "kind": "k", "initial": "p", "context": { "n": { "type": "int" } },
        "states": [ { "name": "p", "initial": "l", "states": ["l"] } ],
        "transitions": [
          { "on": "go", "from": "*", "guard": "n == 0" },
          { "on": "go", "from": "p" } ] }
      """#)
    let rows = try #require(definition.candidates).steps(
      input: 0, state: definition.states.index(of: "l")!, stateCount: definition.states.count
    ).map(\.row)
    #expect(rows == [0, 1])
  }
}

extension KindDefinition.Candidates {
  /// The candidates of the input named `input` (`"(start)"`: the start input) in `state`.
  func steps(input: String, state: KindDefinition.StateIndex, in definition: KindDefinition)
    -> ArraySlice<KindDefinition.Candidate>
  {
    let index = definition.inputs.index(of: input) ?? definition.startInput
    return steps(input: index, state: state, stateCount: definition.states.count)
  }
}
