import Foundation
import Testing

@testable import MillraceHost

/// Loading a machines directory: all kinds, or the errors of every bad file.
@Suite struct KindCatalogTests {
  @Test func collectsTheErrorsOfEveryBadFile() {
    #expect(throws: MachineFileErrors.self) { try KindCatalog(directory: TestData.fixtures("bad")) }
    do {
      _ = try KindCatalog(directory: TestData.fixtures("bad"))
    } catch {
      #expect(
        error.errors.map(\.description) == [
          #"auth.json: transitions[2].to: unknown state "logedIn""#,
          #"broken.json: invalid JSON at line 6, column 5: expected "," or "]", found character "{""#,
          #"effects.json: transitions[0].effects[0].after: invalid duration "5 s": expected a whole number and a unit (ns, us, ms, s, m or h), like "250ms""#,
          #"effects.json: transitions[0].effects[1]: effect combines "cancel" and "emit"; write each as its own effect"#,
          #"queues.json: queues.one.policy: unknown policy "newest"; expected one of "merge", "latest", "oldest""#,
          #"queues.json: queues.three.overflow: "overflow" applies only to "oldest""#,
          "queues.json: queues.two.max: must be a whole number from 1 to 65535",
        ])
      #expect(
        error.errors[0]
          == MachineFileDiagnostic(
            file: "auth.json", path: "transitions[2].to", message: #"unknown state "logedIn""#))
      #expect(error.description.split(separator: "\n").count == 7)
    }
  }

  @Test func aKindDefinedTwiceIsAnErrorInTheLaterFile() {
    do {
      _ = try KindCatalog(directory: TestData.fixtures("duplicate-kinds"))
      Issue.record("a duplicate kind must be refused")
    } catch {
      #expect(
        error.errors.map(\.description) == [
          #"b.json: kind: duplicate kind "lamp" (also in a.json)"#
        ])
    }
  }

  @Test func readsOnlyVisibleJSONFilesAtTheTopLevel() throws {
    let catalog = try KindCatalog(directory: TestData.fixtures("mixed"))
    #expect(catalog.names == ["good"])
    #expect(catalog[kind: "good"]?.source == "good.json")
    #expect(catalog[kind: "nested"] == nil)
    #expect(catalog.warnings.isEmpty)
  }

  @Test func aMissingDirectoryIsOneError() {
    let path = TestData.fixtures("no-such-directory")
    do {
      _ = try KindCatalog(directory: path)
      Issue.record("a missing directory must be refused")
    } catch {
      #expect(error.errors.count == 1)
      #expect(error.errors.first?.file == path)
      #expect(error.errors.first?.message.hasPrefix("cannot list the machines directory") == true)
    }
  }

  @Test func filesInMemoryKeepTheirOrderAndWarnings() throws {
    let catalog = try KindCatalog(files: [
      (
        "z.json",
        Data(
          #"{ "kind": "z", "initial": "a", "final": ["b"], "transitions": [ { "on": "x", "from": "a", "to": "b", "effects": [ { "send": "y" } ] } ] }"#
            .utf8)
      ),
      ("a.json", Data(#"{ "kind": "a", "initial": "a", "transitions": [] }"#.utf8)),
    ])
    #expect(catalog.names == ["z", "a"])
    #expect(catalog.warnings.map(\.file) == ["z.json"])
  }
}
