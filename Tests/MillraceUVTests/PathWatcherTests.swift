import MillraceUV
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Path watcher on a real loop", .serialized)
struct PathWatcherTests {
  @Test func eventsNameTheEntryAndThePathItselfWhenItIsDeleted() throws {
    let loop = try EventLoop()
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    let base = String(directory.split(separator: "/").last!)
    var events: [PathWatcher.Event] = []
    let watcher = try PathWatcher(loop: loop, path: directory) { event in
      events.append(event)
      if event.name == base && event.kinds.contains(.rename) { loop.stop() }
    }
    // Changes made once the loop runs: create, write, delete an entry, then the directory.
    let change = LoopTimer(loop: loop) { _ in
      let file = directory + "/entry"
      let descriptor = open(file, O_CREAT | O_WRONLY, 0o600)
      _ = write(descriptor, "x", 1)
      close(descriptor)
      unlink(file)
      rmdir(directory)
    }
    change.start(after: .milliseconds(1))
    runLoop(loop, timeout: 5)
    let seen = events.map {
      "\($0.name ?? "-") \($0.kinds.contains(.rename) ? "rename" : "change")"
    }
    #expect(seen.first == "entry rename", "\(seen)")
    #expect(seen.contains("entry change"), "\(seen)")
    #expect(seen.last == "\(base) rename", "\(seen)")
    #expect(events.allSatisfy { $0.error == nil })
    watcher.close()
    try closeWithin(loop)
    #expect(loop.openResourceCount == 0)
  }

  @Test func aClosedWatcherCallsNothingAndAMissingPathThrows() throws {
    let loop = try EventLoop()
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    do {
      _ = try PathWatcher(loop: loop, path: directory + "/missing") { _ in }
      Issue.record("watching a missing path did not throw")
    } catch {
      #expect(error.name == "ENOENT")
    }
    var calls = 0
    let watcher = try PathWatcher(loop: loop, path: directory) { _ in calls += 1 }
    watcher.isUnreferenced = true
    #expect(watcher.isUnreferenced)
    watcher.close()
    watcher.close()  // idempotent
    let change = LoopTimer(loop: loop) { _ in
      close(open(directory + "/entry", O_CREAT | O_WRONLY, 0o600))
    }
    change.start(after: .milliseconds(1))
    let end = LoopTimer(loop: loop) { _ in loop.stop() }
    end.start(after: .milliseconds(50))
    runLoop(loop, timeout: 5)
    #expect(calls == 0)
    try closeWithin(loop)
  }
}
