import Testing

@testable import MillraceHost

/// `firstMatch(input:state:)` must give the first row in file order, whatever the grouping.
@Suite struct DispatchLookupTests {
  @Test func wildcardInputRowWinsWhenItComesFirst() throws {
    let definition = try compile(
      machine(
        #"{ "on": "*", "from": "a", "to": "b" }, { "on": "x", "from": "a", "to": "c" }, "#
          + #"{ "on": "x", "from": "b", "to": "c" }, { "on": "*", "from": "b", "to": "a" }"#,
        extra: #""final": ["c"],"#))
    #expect(definition.outcome("x", in: "a") == "b")
    #expect(definition.outcome("x", in: "b") == "c")
    #expect(definition.outcome("x", in: "c") == "rejected")
    #expect(definition.firstMatch(input: 0, state: 0) == 0)
    #expect(definition.firstMatch(input: 0, state: 1) == 2)
  }

  @Test func wildcardStateRowAndListsKeepFileOrder() throws {
    let definition = try compile(
      machine(
        #"{ "on": "x", "from": ["b", "c"] }, { "on": "x", "from": "*", "to": "a" }, "#
          + #"{ "on": "x", "from": "b", "to": "c" }, { "on": "y", "from": "a", "to": "b" }"#))
    #expect(definition.outcome("x", in: "a") == "a")
    #expect(definition.outcome("x", in: "b") == "stay")
    #expect(definition.outcome("x", in: "c") == "stay")
    #expect(definition.outcome("y", in: "a") == "b")
    #expect(definition.outcome("y", in: "b") == "rejected")
  }

  /// Compares the grouped lookup with a plain scan of every row, for every pair.
  @Test func groupedLookupEqualsLinearScan() throws {
    let definition = try compile(
      machine(
        #"{ "on": "p", "from": ["a", "c"], "to": "b" }, { "on": "*", "from": "c", "to": "a" }, "#
          + #"{ "on": "q", "from": "*" }, { "on": "p", "from": "*", "to": "c" }, "#
          + #"{ "on": "*", "from": ["a", "b"], "to": "a" }, { "on": "r", "from": "b", "to": "b" }"#)
    )
    for input in 0..<UInt16(definition.inputs.count) {
      for state in 0..<UInt16(definition.states.count) {
        let scan = definition.rows.firstIndex { row in
          (row.on == nil || row.on == input) && definition.matches(row.from, state)
        }
        #expect(definition.firstMatch(input: input, state: state) == scan)
      }
    }
  }

  @Test func stateSetsBeyondOneWord() throws {
    let names = (0..<130).map { "s\($0)" }
    let list = ["s1", "s64", "s127", "s129"].map(\.quoted).joined(separator: ", ")
    let definition = try compile(
      #"{ "kind": "big", "initial": "s0", "states": [\#(names.map(\.quoted).joined(separator: ", "))], "#
        + #""final": ["s0"], "transitions": [ { "on": "go", "from": [\#(list)], "to": "s0" } ] }"#)
    #expect(definition.stateSetStride == 3)
    let row = try #require(definition.rows.first)
    #expect(
      definition.states(in: row.from).map { definition.states[$0] } == [
        "s1", "s64", "s127", "s129",
      ])
    #expect(definition.outcome("go", in: "s64") == "s0")
    #expect(definition.outcome("go", in: "s65") == "rejected")
  }

  @Test func singleElementListIsOneState() throws {
    let definition = try compile(
      machine(#"{ "on": "x", "from": ["a"], "to": "b" }"#, extra: #""final": ["b"],"#))
    #expect(definition.rows[0].from == .state(0))
    #expect(definition.stateSetWords.isEmpty)
  }

  @Test func inputWithoutRowsIsRejectedEverywhere() throws {
    let definition = try compile(
      machine(
        #"{ "on": "x", "from": "a", "to": "b" }"#,
        extra: #""inputs": ["x", "idle"], "final": ["b"],"#
      ))
    #expect(definition.outcome("idle", in: "a") == "rejected")
    #expect(definition.outcome("idle", in: "b") == "rejected")
  }
}
