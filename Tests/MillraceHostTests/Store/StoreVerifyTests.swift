import Foundation
import Logging
import Millrace
import Testing

@testable import MillraceHost

/// `MachineStore.verify()` and what a host does with a failed store: nothing more committed,
/// changes counted, a rebuild from memory at the stop.
@Suite("Store verification")
final class StoreVerifyTests {
  let parent = NSTemporaryDirectory() + "millrace-verify-\(UUID().uuidString)"
  var directory: String { parent + "/data" }

  init() throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: parent) }

  func host(_ store: MachineStore) -> MachineHost {
    let host = MachineHost(runtime: Runtime(), store: store, logger: Logger(label: "test")) {
      HostClock(monotonic: .zero, wallNanoseconds: 1_000_000_000_000)
    }
    host.register([Counter.kind])
    return host
  }

  @Test func aReplacedFileIsFoundOnceAndStays() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    var reported: [StoreFailure] = []
    store.onFailure = { reported.append($0) }
    #expect(store.verify() == nil)
    let path = directory + "/machines.journal"
    try "other".write(toFile: parent + "/other", atomically: false, encoding: .utf8)
    #expect(rename(parent + "/other", path) == 0)
    let expected = StoreFailure(path: path, problem: "was replaced by another file")
    #expect(store.verify() == expected)
    #expect(store.verify() == expected)
    #expect(reported == [expected])
    #expect(store.failure == expected)
  }

  @Test func aDeletedDirectoryStopsCommitsAndTheStopRebuildsIt() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let host = host(store)
    _ = host.spawn(kind: "counter", name: "c", state: "5")
    host.finishTurn()
    #expect(host.commits == 1)
    try FileManager.default.removeItem(atPath: directory)
    let failure = try #require(store.verify())
    #expect(failure.description == "data directory \(directory) was deleted or moved")
    #expect(host.storeFailure == failure)
    // Changes go on in memory, uncommitted and counted.
    _ = host.spawn(kind: "counter", name: "d", state: nil)
    host.finishTurn()
    #expect(host.commits == 1)
    #expect(host.unstoredChanges == 1)
    #expect(!FileManager.default.fileExists(atPath: directory))
    // The stop writes both machines into a new store at the same path.
    #expect(host.closeStore())
    let rebuilt = try MachineStore(directory: directory, durability: .batched)
    #expect(try rebuilt.loadAll().map { "\($0.name)=\($0.state)" } == ["c=5", "d=0"])
  }

  @Test func aRebuildThatCannotCreateTheDirectorySaysSo() throws {
    let store = try MachineStore(directory: directory, durability: .batched)
    let host = host(store)
    _ = host.spawn(kind: "counter", name: "c", state: nil)
    host.finishTurn()
    // The data directory's path now runs through a regular file: nothing can be created.
    try FileManager.default.removeItem(atPath: parent)
    try "a file".write(toFile: parent, atomically: false, encoding: .utf8)
    #expect(store.verify() != nil)
    #expect(!host.closeStore())
  }

  @Test func anUnusableDirectoryIsOneSentence() throws {
    try "a file".write(toFile: parent + "/file", atomically: false, encoding: .utf8)
    #expect(
      throws: StoreFailure(path: parent + "/file", problem: "is not a directory", isDirectory: true)
    ) {
      try DataDirectory.prepare(parent + "/file")
    }
    #expect(
      throws: StoreFailure(
        path: parent + "/file/data", problem: "cannot be created (not a directory)",
        isDirectory: true)
    ) {
      try DataDirectory.prepare(parent + "/file/data")
    }
    try DataDirectory.prepare(parent + "/new/data")
    var info = stat()
    #expect(stat(parent + "/new/data", &info) == 0 && info.st_mode & 0o777 == 0o700)
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent + "/new/data").isEmpty)
  }
}
