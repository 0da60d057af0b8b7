import Foundation
import Millrace
import Testing

@testable import MillraceHost

@Suite("Dispatch tables of file kinds")
struct DispatchTableTests {
  static let catalog: KindCatalog = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return try! KindCatalog(directory: url.path + "/examples/machines")
  }()

  @Test("a machine file's machines reply as one word (docs/performance-notes.md)")
  func repliesAsWord() {
    #expect(FileMachine._repliesAsWord)
  }

  @Test(
    "the dense and the scanning lookups agree with first-match for every input and state",
    arguments: catalog.kinds.map(\.kind))
  func lookupsAgree(kind name: String) throws {
    let definition = try #require(Self.catalog[kind: name])
    let effects = FileKind(definition).effects
    let dense = DispatchTable(definition, effects: effects)
    let scanning = DispatchTable(definition, effects: effects, denseLimit: 0)
    defer {
      dense.deallocate()
      scanning.deallocate()
    }
    // A nested kind's steps are not its rows (exits and entries): it always takes the dense
    // table, which holds `step(input:state:)`.
    guard definition.steps == nil else {
      #expect(dense.dense != nil && scanning.dense != nil)
      for input in 0...definition.startInput {
        for state in 0..<UInt16(definition.states.count) {
          let expected = definition.step(input: input, state: state).map {
            TableStep(to: Int32($0.to ?? state), effects: $0.effects)
          }
          #expect(dense.step(input: input, state: state) == expected ?? .rejected)
        }
      }
      return
    }
    #expect(dense.dense != nil && scanning.dense == nil)
    for input in 0..<UInt16(definition.inputs.count) {
      for state in 0..<UInt16(definition.states.count) {
        let row = definition.firstMatch(input: input, state: state)
        #expect(scanning.firstRow(input: input, state: state) == row ?? -1)
        let expected =
          row.map { row in
            TableStep(
              // A row that stays goes to the state it is in.
              to: definition.rows[row].to.map(Int32.init) ?? Int32(state),
              effects: definition.rows[row].effects)
          } ?? .rejected
        #expect(dense.step(input: input, state: state) == expected)
        #expect(scanning.step(input: input, state: state) == expected)
      }
    }
    // The start input stays and records nothing in a kind without entry effects.
    let start = definition.startInput
    let stay = TableStep(to: 0, effects: 0..<0)
    #expect(dense.step(input: start, state: 0) == stay)
    #expect(scanning.step(input: start, state: 0) == stay)
    let outOfRange = start + 1
    #expect(dense.step(input: outOfRange, state: 0) == .rejected)
    #expect(scanning.step(input: outOfRange, state: 0) == .rejected)
  }
}
