import Foundation
import Testing

@testable import MillraceHost

/// Every check of a machine file, each with the exact message a user sees.
@Suite struct ValidationTests {
  static let names: [(String, [String])] = [
    (
      #"{ "kind": "my kind", "initial": "a", "transitions": [] }"#,
      [#"t.json: kind: invalid kind name "my kind" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#]
    ),
    (
      #"{ "kind": "\#(String(repeating: "k", count: 129))", "initial": "a", "transitions": [] }"#,
      [
        #"t.json: kind: invalid kind name "\#(String(repeating: "k", count: 129))" "#
          + "(1 to 128 characters from A-Z a-z 0-9 _ . : -)"
      ]
    ),
    (
      machine(#"{ "on": "go!", "from": "a", "to": "b/c" }"#),
      [
        #"t.json: transitions[0].on: invalid input name "go!" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#,
        #"t.json: transitions[0].to: invalid state name "b/c" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#,
      ]
    ),
    (
      machine(#"{ "on": "x", "from": "a" }"#, extra: #""states": ["a", "", "a"],"#),
      [
        #"t.json: states[1]: invalid state name "" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#,
        #"t.json: states[2]: duplicate state "a""#,
      ]
    ),
  ]

  @Test(arguments: names)
  func namesFollowTheRule(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  static let unknownNames: [(String, [String])] = [
    (
      machine(
        #"{ "on": "x", "from": "a", "to": "b" }, { "on": "x", "from": "b", "to": "c" }, "#
          + #"{ "on": "y", "from": "b", "to": "logedIn" }"#,
        extra: #""states": ["a", "b", "c"],"#),
      [#"t.json: transitions[2].to: unknown state "logedIn""#]
    ),
    (
      #"{ "kind": "k", "initial": "z", "states": ["a"], "transitions": [ "#
        + #"{ "on": "x", "from": ["a", "q"] } ] }"#,
      [
        #"t.json: initial: unknown state "z""#,
        #"t.json: transitions[0].from[1]: unknown state "q""#,
      ]
    ),
    (
      machine(
        #"{ "on": "go", "from": "*", "effects": [ { "send": "stop" }, { "emit": "beep" } ] }"#,
        extra: #""inputs": ["stop"], "outputs": [],"#),
      [
        #"t.json: transitions[0].on: unknown input "go""#,
        #"t.json: transitions[0].effects[1].emit: unknown output "beep""#,
      ]
    ),
    (
      machine(
        #"{ "on": "go", "from": "*", "effects": [ "#
          + #"{ "after": "1s", "send": "go", "queue": "fast" }, { "cancel": "tmr" } ] }"#),
      [
        #"t.json: transitions[0].effects[0].queue: unknown queue "fast""#,
        #"t.json: transitions[0].effects[1].cancel: unknown id "tmr" (no "after" or "every" effect has it)"#,
      ]
    ),
  ]

  @Test(arguments: unknownNames)
  func referencesMustBeKnown(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  static let queues: [(String, [String])] = [
    (
      #"{ "policy": "lastest" }"#,
      [
        #"t.json: queues.q.policy: unknown policy "lastest"; expected one of "merge", "latest", "oldest""#
      ]
    ),
    (#"{ "max": 1 }"#, [#"t.json: queues.q.policy: missing (required)"#]),
    (
      #"{ "policy": "latest", "max": 0 }"#,
      [#"t.json: queues.q.max: must be a whole number from 1 to 65535"#]
    ),
    (
      #"{ "policy": "oldest", "max": 1.5 }"#,
      [#"t.json: queues.q.max: must be a whole number from 1 to 65535"#]
    ),
    (#"{ "policy": "oldest", "max": "2" }"#, [#"t.json: queues.q.max: expected a number"#]),
    (
      #"{ "policy": "oldest", "max": 1e400 }"#,
      ["t.json: queues.q.max: number out of range"]
    ),
    (
      #"{ "policy": "merge", "max": 4 }"#,
      [#"t.json: queues.q.max: "max" applies only to "latest" and "oldest""#]
    ),
    (
      #"{ "policy": "latest", "overflow": "discard" }"#,
      [#"t.json: queues.q.overflow: "overflow" applies only to "oldest""#]
    ),
    (
      #"{ "policy": "oldest", "overflow": "drop" }"#,
      [#"t.json: queues.q.overflow: unknown overflow "drop"; expected one of "suspend", "discard""#]
    ),
    (
      #"{ "policy": "oldest", "maxx": 2 }"#,
      [#"t.json: queues.q.maxx: unknown key; expected one of "max", "overflow", "policy""#]
    ),
    (#"[]"#, [#"t.json: queues.q: expected an object"#]),
  ]

  @Test(arguments: queues)
  func queueSettings(queue: String, expected: [String]) {
    #expect(errors(machine("", extra: #""queues": { "q": \#(queue) },"#)) == expected)
  }

  @Test func queuePoliciesAndDefaults() throws {
    let definition = try compile(
      machine(
        "",
        extra: #"""
          "queues": { "m": { "policy": "merge" }, "l": { "policy": "latest" },
            "o": { "policy": "oldest", "max": 3 }, "d": { "policy": "oldest", "overflow": "discard" },
            "default": { "policy": "latest", "max": 2 } },
          """#))
    #expect(definition.queues.names == ["default", "d", "l", "m", "o"])
    #expect(
      definition.queuePolicies == [
        .latest(max: 2), .oldest(max: 1, .discardNew), .latest(max: 1), .merge,
        .oldest(max: 3, .suspendNew),
      ])
    #expect(try compile(machine("")).queuePolicies == [.merge])
  }

  @Test func queueNamesAreCheckedAndLimited() {
    #expect(
      errors(machine("", extra: #""queues": { "a q": { "policy": "merge" } },"#)) == [
        #"t.json: queues["a q"]: invalid queue name "a q" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#
      ])
    let many = (0..<256).map { #""q\#($0)": { "policy": "merge" }"# }.joined(separator: ", ")
    #expect(
      errors(machine("", extra: #""queues": { \#(many) },"#)) == [
        "t.json: queues: too many queues (at most 256)"
      ])
  }

  static let effects: [(String, [String])] = [
    (
      #"{}"#,
      [
        #"t.json: transitions[0].effects[0]: effect needs one of "send", "after", "every", "cancel" or "emit""#
      ]
    ),
    (
      #"{ "cancel": "t", "emit": "o" }"#,
      [
        #"t.json: transitions[0].effects[0]: effect combines "cancel" and "emit"; write each as its own effect"#
      ]
    ),
    (
      #"{ "after": "1s", "every": "1s", "send": "x", "emit": "o" }"#,
      [
        #"t.json: transitions[0].effects[0]: effect combines "after", "every" and "emit"; write each as its own effect"#
      ]
    ),
    (
      #"{ "emit": "o", "send": "x" }"#,
      [
        #"t.json: transitions[0].effects[0]: effect combines "emit" and "send"; write each as its own effect"#
      ]
    ),
    (
      #"{ "after": "1s" }"#,
      [#"t.json: transitions[0].effects[0].after: "after" needs "send" (the input to deliver)"#]
    ),
    (
      #"{ "send": "x", "queue": "default", "id": "i" }"#,
      [
        #"t.json: transitions[0].effects[0].queue: "queue" applies only to "after" and "every""#,
        #"t.json: transitions[0].effects[0].id: "id" applies only to "after" and "every""#,
      ]
    ),
    (
      #"{ "every": "1s", "send": "x", "ID": "i" }"#,
      [
        #"t.json: transitions[0].effects[0].ID: unknown key; expected one of "after", "args", "cancel", "emit", "every", "id", "queue", "send""#
      ]
    ),
    (#""send x""#, [#"t.json: transitions[0].effects[0]: expected an object"#]),
    (#"{ "emit": 3 }"#, [#"t.json: transitions[0].effects[0].emit: expected a string"#]),
  ]

  @Test(arguments: effects)
  func effectShapes(effect: String, expected: [String]) {
    #expect(errors(machine(#"{ "on": "x", "from": "*", "effects": [ \#(effect) ] }"#)) == expected)
  }

  static let durations: [(String, String)] = [
    (
      "2x",
      #"invalid duration "2x": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#
    ),
    (
      "1.5s",
      #"invalid duration "1.5s": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#
    ),
    (
      "-1s",
      #"invalid duration "-1s": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#
    ),
    (
      "",
      #"invalid duration "": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#
    ),
    (
      "10",
      #"invalid duration "10": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#
    ),
    ("0ms", #"duration "0ms" must be positive"#),
    ("2562048h", #"duration "2562048h" is too long (at most about 292 years)"#),
    (
      "99999999999999999999ns",
      #"duration "99999999999999999999ns" is too long (at most about 292 years)"#
    ),
  ]

  @Test(arguments: durations)
  func durationsAreChecked(duration: String, message: String) {
    let json = machine(
      #"{ "on": "x", "from": "*", "effects": [ { "every": "\#(duration)", "send": "x" } ] }"#)
    #expect(errors(json) == ["t.json: transitions[0].effects[0].every: \(message)"])
  }

  static let shapes: [(String, [String])] = [
    (
      #"{ "kind": "k", "initial": "a", "transitions": [], "trasitions": [] }"#,
      [
        #"t.json: trasitions: unknown key; expected one of "context", "final", "initial", "inputs", "kind", "migrate", "outputs", "queues", "states", "transitions""#
      ]
    ),
    (
      #"{ "kind": "k", "transitions": {} }"#,
      [#"t.json: initial: missing (required)"#, #"t.json: transitions: expected a list"#]
    ),
    (#"[]"#, [#"t.json: expected an object"#]),
    (
      machine(#"{ "on": "x", "from": "a", "too": "b", "effect": [] }"#),
      [
        #"t.json: transitions[0].effect: unknown key; expected one of "assign", "effects", "from", "guard", "on", "to""#,
        #"t.json: transitions[0].too: unknown key; expected one of "assign", "effects", "from", "guard", "on", "to""#,
      ]
    ),
    (machine(#"{ "from": "a" }"#), [#"t.json: transitions[0].on: missing (required)"#]),
    (machine(#"{ "on": "x" }"#), [#"t.json: transitions[0].from: missing (required)"#]),
    (
      machine(#"{ "on": "x", "from": null }"#),
      [#"t.json: transitions[0].from: expected a state, a list of states, or "*""#]
    ),
    (
      machine(#"{ "on": "x", "from": [] }"#),
      [#"t.json: transitions[0].from: empty list; write "*" for every state"#]
    ),
    (
      machine(#"{ "on": "x", "from": ["a", "*", "a", 7] }"#),
      [
        #"t.json: transitions[0].from[3]: expected a string"#,
        #"t.json: transitions[0].from[1]: "*" stands alone, not in a list"#,
        #"t.json: transitions[0].from[2]: duplicate state "a""#,
      ]
    ),
    (
      machine(#"{ "on": "x", "from": "a", "to": "*" }"#),
      [
        #"t.json: transitions[0].to: invalid state name "*" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#
      ]
    ),
    (
      machine(#"{ "on": "x", "from": "a", "on": "y" }"#),
      [#"t.json: transitions[0].on: duplicate key"#]
    ),
    (
      machine(#"3, { "on": 4, "from": "a" }"#),
      [
        #"t.json: transitions[0]: expected an object"#,
        #"t.json: transitions[1].on: expected a string"#,
      ]
    ),
  ]

  @Test(arguments: shapes)
  func shapeOfTheFile(json: String, expected: [String]) {
    #expect(errors(json) == expected)
  }

  @Test func syntaxErrorsHaveLineAndColumn() {
    #expect(
      errors("{\n  \"kind\": \"k\"\n  \"initial\": \"a\"\n}") == [
        #"t.json: invalid JSON at line 3, column 3: expected "," or "}", found character "\"""#
      ])
    #expect(
      errors("") == [
        "t.json: invalid JSON at line 1, column 1: expected a value, found end of file"
      ])
    let invalidUTF8 = Data([0x7B, 0xFF, 0x7D])
    #expect(throws: MachineFileErrors.self) {
      try KindDefinition(json: invalidUTF8, file: "t.json")
    }
    do {
      _ = try KindDefinition(json: invalidUTF8, file: "t.json")
    } catch {
      #expect(error.description == "t.json: not valid UTF-8 text")
    }
  }

  @Test func everyProblemOfAFileIsReportedInOnePass() {
    let json = #"""
      { "kind": "k", "initial": "a", "colour": "red",
        "queues": { "q": { "policy": "latest", "max": 0 } },
        "transitions": [
          { "on": "x", "from": "a", "effects": [ { "after": "soon", "send": "y" } ] },
          { "on": "y", "from": "a", "to": "b", "efects": [] } ] }
      """#
    #expect(
      errors(json) == [
        #"t.json: colour: unknown key; expected one of "context", "final", "initial", "inputs", "kind", "migrate", "outputs", "queues", "states", "transitions""#,
        "t.json: queues.q.max: must be a whole number from 1 to 65535",
        #"t.json: transitions[0].effects[0].after: invalid duration "soon": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#,
        #"t.json: transitions[1].efects: unknown key; expected one of "assign", "effects", "from", "guard", "on", "to""#,
      ])
  }

  /// A misspelt `to` makes a state that nothing leaves: an error, even without declared
  /// states (DESIGN §4.2's example); declaring it final makes it deliberate.
  @Test func aStateReachedAndNeverLeftMustBeFinal() throws {
    let typo =
      #"{ "on": "login", "from": "a", "to": "logedIn" }, { "on": "ok", "from": "loggedIn", "to": "a" }"#
    #expect(
      errors(machine(typo)) == [
        #"t.json: transitions[0].to: state "logedIn" is never left: no transition goes from it to another state (declare it in "final" if that is meant)"#
      ])
    #expect(errors(machine(typo, extra: #""final": ["logedIn"],"#)) == [])
    #expect(
      errors(machine(typo, extra: #""final": ["a"],"#)) == [
        #"t.json: final[0]: final state "a" is left by transitions[0]"#,
        #"t.json: transitions[0].to: state "logedIn" is never left: no transition goes from it to another state (declare it in "final" if that is meant)"#,
      ])
    #expect(
      errors(machine(typo, extra: #""final": ["logedIn", "nope"],"#)) == [
        #"t.json: final[1]: unknown state "nope""#
      ])
    // A row back to the same state leaves it (exits and re-enters); a one-state machine whose
    // rows all stay is not finished at birth.
    #expect(
      errors(
        machine(#"{ "on": "x", "from": "a", "to": "b" }, { "on": "*", "from": "*", "to": "b" }"#))
        == [])
    #expect(errors(machine(#"{ "on": "x", "from": "a" }"#)) == [])
  }

  @Test func inferredNamesWarnInsteadOfFailing() throws {
    let definition = try compile(
      machine(
        #"{ "on": "login", "from": "a", "to": "logedIn", "effects": [ { "send": "loginOk" } ] }, "#
          + #"{ "on": "loginOK", "from": "loggedIn", "to": "a" }, { "on": "x", "from": "a", "to": "logedIn" }, "#
          + #"{ "on": "reset", "from": "*", "to": "a" }"#
      ))
    #expect(
      definition.warnings.map(\.description) == [
        #"t.json: transitions[0].to: state "logedIn" appears only in "to", never in "from" or "initial" (declare "states" to make unknown states errors)"#,
        #"t.json: transitions[0].effects[0].send: input "loginOk" is sent but no transition handles it (declare "inputs" to make unknown inputs errors)"#,
      ])
    #expect(definition.states.names == ["a", "logedIn", "loggedIn"])
    let declared = try compile(
      machine(
        #"{ "on": "x", "from": "a", "to": "b", "effects": [ { "send": "y" } ] }"#,
        extra: #""states": ["a", "b"], "inputs": ["x", "y"], "final": ["b"],"#))
    #expect(declared.warnings.isEmpty)
    let wildcard = try compile(
      machine(#"{ "on": "*", "from": "a", "effects": [ { "send": "y" } ] }"#))
    #expect(wildcard.warnings.isEmpty)
  }

  @Test func decodeGivesTheFileAsWrittenOrEveryProblem() throws {
    let good = machine(#"{ "on": "x", "from": ["a", "b"], "to": "b" }"#)
    #expect(
      try MachineFile.decode(Data(good.utf8), file: "t.json")
        == MachineFile(
          kind: "k", initial: "a",
          transitions: [.init(on: .input("x"), from: .states(["a", "b"]), to: "b")]))
    let bad = machine(#"{ "on": "x", "from": "a", "oops": 1, "to": 2 }"#)
    #expect(throws: MachineFileErrors.self) {
      try MachineFile.decode(Data(bad.utf8), file: "t.json")
    }
    do {
      _ = try MachineFile.decode(Data(bad.utf8), file: "t.json")
    } catch {
      #expect(
        error.errors.map(\.description) == [
          #"t.json: transitions[0].oops: unknown key; expected one of "assign", "effects", "from", "guard", "on", "to""#,
          "t.json: transitions[0].to: expected a string",
        ])
    }
  }
}
