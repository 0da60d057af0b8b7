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
    #expect(dense.dense != nil && scanning.dense == nil)
    for input in 0..<UInt16(definition.inputs.count) {
      for state in 0..<UInt16(definition.states.count) {
        let expected = definition.firstMatch(input: input, state: state) ?? -1
        #expect(dense.firstRow(input: input, state: state) == expected)
        #expect(scanning.firstRow(input: input, state: state) == expected)
      }
    }
    let outOfRange = UInt16(definition.inputs.count)
    #expect(dense.firstRow(input: outOfRange, state: 0) == -1)
    #expect(scanning.firstRow(input: outOfRange, state: 0) == -1)
  }
}
