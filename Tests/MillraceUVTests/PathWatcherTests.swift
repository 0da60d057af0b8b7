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
    try expectClosedWatcherCallsNothing { (loop, path, handler) throws(UVError) in
      let watcher = try PathWatcher(loop: loop, path: path, handler: handler)
      return ({ watcher.close() }, { watcher.isUnreferenced = true })
    }
  }
}

/// What every watcher of paths guarantees, for a watcher `watch` makes (its `close` and a
/// way to unreference it): watching a missing path throws ENOENT; one closed (twice: it is
/// idempotent) is called for nothing that happens after, and leaves nothing open.
func expectClosedWatcherCallsNothing(
  _ watch: (EventLoop, String, @escaping (PathWatcher.Event) -> Void) throws(UVError) -> (
    close: () -> Void, unreference: () -> Void
  )
) throws {
  let loop = try EventLoop()
  let directory = makeTemporaryDirectory()
  defer { removeDirectory(directory) }
  do {
    _ = try watch(loop, directory + "/missing") { _ in }
    Issue.record("watching a missing path did not throw")
  } catch {
    #expect(error.name == "ENOENT")
  }
  var calls = 0
  let watcher = try watch(loop, directory) { _ in calls += 1 }
  watcher.unreference()
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
  #expect(loop.openResourceCount == 0)
}
