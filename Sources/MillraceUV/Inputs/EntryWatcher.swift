import CLibUV

#if os(Linux)
  import Glibc

  /// Watches a directory for entries created, deleted, renamed or whose attributes changed,
  /// and calls a closure on the loop thread for each event; unlike `PathWatcher`, not for
  /// writes to the entries' contents (inotify without `IN_MODIFY`, polled by the loop).
  ///
  /// For an owner that writes the directory's files itself: under a `PathWatcher` every write
  /// queues an event, which the writing thread pays for in the kernel and the loop reads back;
  /// here the kernel skips them. (A store's checkpoint writing a million machines made about
  /// 7% of its thread's time such events.) Linux only.
  ///
  /// Guarantees:
  /// - Events are `PathWatcher.Event`s: `rename` for an entry created, deleted, or moved in or
  ///   out, named; `change` for an entry whose attributes changed, named; `rename` naming the
  ///   path's last component when the watched path itself is deleted or moved (the watch ends
  ///   then).
  /// - Events are hints, as `PathWatcher`'s are. When the kernel's queue overflowed (events
  ///   were lost), an event with no name and both kinds says so: check everything.
  /// - A failed read reaches the closure as an event with `error` set.
  /// - The watcher stays alive while its loop does (the loop owns it); `close()` (or
  ///   `EventLoop.close()`) releases it, its descriptor and its closure, after which the
  ///   closure is never called again.
  public final class EntryWatcher: LoopHandle<uv_poll_t> {
    /// The watched path.
    public let path: String
    private var descriptor: Int32
    private var handler: ((PathWatcher.Event) -> Void)?

    /// Starts watching `path` (which must exist); `handler` runs on the loop thread per event.
    public init(
      loop: EventLoop, path: String, handler: @escaping (PathWatcher.Event) -> Void
    ) throws(UVError) {
      self.path = path
      self.handler = handler
      let opened = EntryNotifications.open(watching: path)
      guard opened >= 0 else { throw UVError(opened) }
      descriptor = opened
      super.init(on: loop)
      do throws(UVError) {
        let handle = try adopt { uv_poll_init(loop.raw, $0, descriptor) }
        let started = uv_poll_start(handle, Int32(UV_READABLE.rawValue)) { raw, status, _ in
          withOwner(of: asHandle(raw!), as: EntryWatcher.self) { $0.readEvents(status) }
        }
        if started < 0 {
          shutdown()
          throw UVError(started)
        }
      } catch {
        if handle == nil {
          closeDescriptor(descriptor)
          descriptor = -1
        }
        throw error
      }
    }

    private func readEvents(_ status: Int32) {
      if status < 0 {
        handler?(PathWatcher.Event(name: nil, kinds: [], error: UVError(status)))
        return
      }
      let base = String(path.split(separator: "/").last ?? Substring(path))
      let failed = EntryNotifications.takeEvents(descriptor) { mask, name in
        let event: PathWatcher.Event
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
          event = PathWatcher.Event(name: nil, kinds: [.rename, .change])
        } else if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
          event = PathWatcher.Event(name: base, kinds: .rename)
        } else if mask & UInt32(IN_IGNORED) != 0 {
          return  // the watch ended: its cause (the path deleted or moved) was reported
        } else {
          event = PathWatcher.Event(
            name: name.isEmpty ? base : String(decoding: name, as: UTF8.self),
            kinds: mask & UInt32(IN_ATTRIB) != 0 ? .change : .rename)
        }
        handler?(event)
      }
      if failed < 0 { handler?(PathWatcher.Event(name: nil, kinds: [], error: UVError(failed))) }
    }

    override func willCloseHandle() {
      handler = nil
    }

    override func didCloseHandle() {
      // Closed only once libuv no longer polls it.
      if descriptor >= 0 { closeDescriptor(descriptor) }
      descriptor = -1
    }
  }
#endif
