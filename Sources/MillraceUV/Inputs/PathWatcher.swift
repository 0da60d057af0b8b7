import CLibUV

/// Watches a file or a directory for changes (`uv_fs_event_t`: inotify on Linux) and calls a
/// closure on the loop thread for each event.
///
/// Guarantees:
/// - For a directory, events name the entry that changed (created, deleted, renamed, written,
///   its attributes changed); an event of the watched path itself (deleted, moved, its
///   attributes changed) names the path's last component.
/// - Events are hints, not a log: the kernel may coalesce or drop them (a full queue), and a
///   watch ends when its path is deleted. Whoever needs certainty checks the files itself when
///   an event arrives, and now and then without one.
/// - A failure of the watch reaches the closure as an event with `error` set.
/// - The watcher stays alive while its loop does (the loop owns it); `close()` (or
///   `EventLoop.close()`) releases it and its closure, after which the closure is never
///   called again.
public final class PathWatcher: LoopHandle<uv_fs_event_t> {
  /// What an event says happened.
  public struct Kinds: OptionSet, Hashable, Sendable {
    /// libuv's `uv_fs_event` bits.
    public let rawValue: Int32
    /// Wraps libuv's `uv_fs_event` bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// An entry appeared, disappeared or was renamed, or the watched path was deleted or moved.
    public static let rename = Kinds(rawValue: Int32(UV_RENAME.rawValue))
    /// An entry's contents or attributes changed.
    public static let change = Kinds(rawValue: Int32(UV_CHANGE.rawValue))
  }

  /// One event.
  public struct Event: Sendable {
    /// The entry it is about (see the type's guarantees), or nil when the system gave none.
    public var name: String?
    /// What happened.
    public var kinds: Kinds
    /// Set when the watch failed; then `name` and `kinds` mean nothing.
    public var error: UVError?
  }

  /// The watched path.
  public let path: String
  private var handler: ((Event) -> Void)?

  /// Starts watching `path` (which must exist); `handler` runs on the loop thread per event.
  public init(loop: EventLoop, path: String, handler: @escaping (Event) -> Void) throws(UVError) {
    self.path = path
    self.handler = handler
    super.init(on: loop)
    let handle = try adopt { uv_fs_event_init(loop.raw, $0) }
    let started = uv_fs_event_start(
      handle,
      { raw, name, events, status in
        withOwner(of: asHandle(raw!), as: PathWatcher.self) { watcher in
          watcher.handler?(
            Event(
              name: name.map { String(cString: $0) }, kinds: Kinds(rawValue: events),
              error: status < 0 ? UVError(status) : nil))
        }
      }, path, 0)
    if started < 0 {
      shutdown()
      throw UVError(started)
    }
  }

  override func willCloseHandle() {
    handler = nil
  }
}
