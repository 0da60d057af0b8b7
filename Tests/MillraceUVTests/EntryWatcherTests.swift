#if os(Linux)
  import MillraceUV
  import Testing
  import Glibc

  @Suite("Entry watcher on a real loop", .serialized)
  struct EntryWatcherTests {
    /// Creates, writes a hundred times, changes the mode of and deletes an entry, then removes
    /// the directory; returns the events as "name kind".
    private func watchChanges(
      _ directory: String, base: String, on loop: EventLoop
    ) throws -> (seen: [String], errors: Int) {
      var events: [PathWatcher.Event] = []
      let watcher = try EntryWatcher(loop: loop, path: directory) { event in
        events.append(event)
        if event.name == base && event.kinds.contains(.rename) { loop.stop() }
      }
      let change = LoopTimer(loop: loop) { _ in
        let file = directory + "/entry"
        let descriptor = open(file, O_CREAT | O_WRONLY, 0o600)
        for _ in 0..<100 { _ = write(descriptor, "x", 1) }
        close(descriptor)
        chmod(file, 0o400)
        unlink(file)
        rmdir(directory)
      }
      change.start(after: .milliseconds(1))
      runLoop(loop, timeout: 5)
      watcher.close()
      let seen = events.map {
        "\($0.name ?? "-") \($0.kinds.contains(.rename) ? "rename" : "change")"
      }
      return (seen, events.filter { $0.error != nil }.count)
    }

    @Test func entriesAndTheirAttributesAreReportedButNotTheirContents() throws {
      let loop = try EventLoop()
      let directory = makeTemporaryDirectory()
      defer { removeDirectory(directory) }
      let base = String(directory.split(separator: "/").last!)
      let (seen, errors) = try watchChanges(directory, base: base, on: loop)
      // The hundred writes raise nothing; what does is the creation, the mode, the deletion,
      // and the directory itself going.
      let entry = seen.filter { $0.hasPrefix("entry ") }
      #expect(entry == ["entry rename", "entry change", "entry rename"], "\(seen)")
      #expect(seen.last == "\(base) rename", "\(seen)")
      #expect(errors == 0)
      try closeWithin(loop)
      #expect(loop.openResourceCount == 0)
    }

    @Test func aFullQueueIsReportedAsAnEventNamingNothing() throws {
      let loop = try EventLoop()
      let directory = makeTemporaryDirectory()
      defer { removeDirectory(directory) }
      let limit = queuedEventLimit()
      var overflows = 0
      var named = 0
      let watcher = try EntryWatcher(loop: loop, path: directory) { event in
        #expect(event.error == nil)
        if event.name == nil {
          #expect(event.kinds == [.rename, .change])
          overflows += 1
          loop.stop()
        } else {
          named += 1
        }
      }
      let flood = LoopTimer(loop: loop) { _ in
        let (first, second) = (directory + "/a", directory + "/b")
        close(open(first, O_CREAT | O_WRONLY, 0o600))
        // Two events a rename (moved from, moved to), never merged; the loop reads none of
        // them before this callback returns: twice the queue's limit in all.
        for _ in 0..<(limit / 2 + 1) {
          rename(first, second)
          rename(second, first)
        }
      }
      flood.start(after: .milliseconds(1))
      runLoop(loop, timeout: 10)
      #expect(overflows == 1)
      #expect(named <= limit, "the queue held at most its limit before the overflow")
      watcher.close()
      try closeWithin(loop)
    }

    /// The kernel's inotify queue limit (`/proc/sys/fs/inotify/max_queued_events`).
    private func queuedEventLimit() -> Int {
      let descriptor = open("/proc/sys/fs/inotify/max_queued_events", O_RDONLY)
      defer { close(descriptor) }
      var bytes = [UInt8](repeating: 0, count: 32)
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      let text = String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
      return Int(text.split(separator: "\n").first ?? "") ?? 16_384
    }

    @Test func aPathWatcherSeesTheWritesThisOneSkips() throws {
      // The same changes under a `PathWatcher`: the writes are there (the difference the
      // entry watcher exists for).
      let loop = try EventLoop()
      let directory = makeTemporaryDirectory()
      defer { removeDirectory(directory) }
      var changes = 0
      let watcher = try PathWatcher(loop: loop, path: directory) { event in
        if event.name == "entry" && !event.kinds.contains(.rename) { changes += 1 }
      }
      let change = LoopTimer(loop: loop) { _ in
        let descriptor = open(directory + "/entry", O_CREAT | O_WRONLY, 0o600)
        for _ in 0..<100 { _ = write(descriptor, "x", 1) }
        close(descriptor)
      }
      change.start(after: .milliseconds(1))
      let end = LoopTimer(loop: loop) { _ in loop.stop() }
      end.start(after: .milliseconds(50))
      runLoop(loop, timeout: 5)
      #expect(changes > 0)
      watcher.close()
      try closeWithin(loop)
    }

    @Test func aClosedWatcherCallsNothingAndAMissingPathThrows() throws {
      try expectClosedWatcherCallsNothing { (loop, path, handler) throws(UVError) in
        let watcher = try EntryWatcher(loop: loop, path: path, handler: handler)
        return ({ watcher.close() }, { watcher.isUnreferenced = true })
      }
    }
  }
#endif
