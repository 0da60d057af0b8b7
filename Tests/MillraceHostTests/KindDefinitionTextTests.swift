import Foundation
import Testing

@testable import MillraceHost

/// What `DESCRIBE kind` answers, kept with each kind: a machine file's text as loaded, the
/// description a Swift kind is registered with, or nothing.
@Suite struct KindDefinitionTextTests {
  @Test func theCatalogKeepsEachFilesTextWithItsKind() throws {
    let catalog = try KindCatalog(directory: TestData.examples)
    #expect(catalog.texts.count == catalog.kinds.count)
    for kind in catalog.names {
      let file = try String(contentsOfFile: "\(TestData.examples)/\(kind).json", encoding: .utf8)
      #expect(catalog[text: kind] == file, "\(kind)")
    }
    #expect(catalog[text: "counter"] == nil)
  }

  @Test func hostKindsCarryTheirDefinition() throws {
    let json = #"{ "kind": "k", "initial": "a", "transitions": [ { "on": "x", "from": "a" } ] }"#
    let definition = try compile(json)
    #expect(HostKind.file(definition, json: json).definition == json)
    #expect(HostKind.file(definition).definition == nil)
    #expect(Counter.kind.definition == Counter.definition)
    let codec = TextCodec<Counter>(
      parseInput: { $0 == "inc" ? .increment : nil }, formatInput: { _ in "inc" },
      parseState: { Int($0) }, formatState: { String($0) }, formatOutput: { $0 })
    let bare = HostKind.code("bare", Counter.self, initial: 0, extra: (), codec: codec)
    #expect(bare.definition == nil)
  }
}
