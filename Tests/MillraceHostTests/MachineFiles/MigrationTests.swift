import Foundation
import Testing

@testable import MillraceHost

/// `"migrate"`: parsed with the file, every mapping checked against the kind's names.
@Suite("Machine files: migrate")
struct MigrationTests {
  static let rows =
    #"{ "on": "timeout", "from": "opened", "to": "shut" }, { "on": "open", "from": "shut", "to": "opened" }"#

  @Test("a valid mapping is kept in the definition")
  func validMappingIsKept() throws {
    let definition = try compile(
      machine(
        Self.rows,
        extra:
          #""migrate": { "states": { "closed": "shut" }, "inputs": { "autoClose": "timeout" } },"#
      ))
    #expect(definition.migration.states == ["closed": "shut"])
    #expect(definition.migration.inputs == ["autoClose": "timeout"])
    #expect(try compile(machine(Self.rows)).migration.isEmpty)
  }

  @Test(
    "bad mappings are refused at their field",
    arguments: [
      (
        #""migrate": { "states": { "closed": "shutt" } },"#,
        [#"t.json: migrate.states.closed: unknown state "shutt""#]
      ),
      (
        #""migrate": { "states": { "shut": "opened" } },"#,
        [
          #"t.json: migrate.states.shut: "shut" is still one of the kind's states; only a name the kind no longer has can be migrated"#
        ]
      ),
      (
        #""migrate": { "inputs": { "autoClose": "close" } },"#,
        [#"t.json: migrate.inputs.autoClose: unknown input "close""#]
      ),
      (
        #""migrate": { "inputs": { "open": "timeout" } },"#,
        [
          #"t.json: migrate.inputs.open: "open" is still one of the kind's inputs; only a name the kind no longer has can be migrated"#
        ]
      ),
      (
        #""migrate": { "sates": {} },"#,
        [#"t.json: migrate.sates: unknown key; expected one of "inputs", "states""#]
      ),
      (
        #""migrate": { "states": { "a b": "shut" } },"#,
        [
          #"t.json: migrate.states["a b"]: invalid state name "a b" (1 to 128 characters from A-Z a-z 0-9 _ . : -)"#
        ]
      ),
      (#""migrate": { "states": { "x": 3 } },"#, [#"t.json: migrate.states.x: expected a string"#]),
    ])
  func badMappingsAreRefused(extra: String, expected: [String]) {
    #expect(errors(machine(Self.rows, extra: extra)) == expected)
  }

  @Test("runsLike ignores migrate and the file name, not the table")
  func runsLikeComparesTheTable() throws {
    let plain = try compile(machine(Self.rows))
    let migrating = try compile(
      machine(Self.rows, extra: #""migrate": { "states": { "closed": "shut" } },"#),
      file: "other.json")
    let changed = try compile(machine(Self.rows + #", { "on": "open", "from": "opened" }"#))
    #expect(plain.runsLike(migrating))
    #expect(!plain.runsLike(changed))
  }
}
