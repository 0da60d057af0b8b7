import CLibUV  // timerfd

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Internal: `close(2)` without the name clash with the classes' own `close()` methods.
@inline(__always)
func closeDescriptor(_ fd: Int32) {
  #if canImport(Glibc)
    _ = Glibc.close(fd)
  #elseif canImport(Darwin)
    _ = Darwin.close(fd)
  #endif
}

/// Internal: the kernel timer a `PeriodicTicker` polls (Linux's `timerfd`; none elsewhere).
enum KernelTimer {
  /// A non-blocking descriptor that becomes readable every `periodMilliseconds` (on the
  /// monotonic clock), the first time one period from now; nil where there is none, or when
  /// it cannot be had.
  static func open(periodMilliseconds: UInt64) -> Int32? {
    #if os(Linux)
      let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
      guard fd >= 0 else { return nil }
      let period = timespec(
        tv_sec: Int(periodMilliseconds / 1000), tv_nsec: Int(periodMilliseconds % 1000) * 1_000_000)
      var setting = itimerspec(it_interval: period, it_value: period)
      guard timerfd_settime(fd, 0, &setting, nil) == 0 else {
        closeDescriptor(fd)
        return nil
      }
      return fd
    #else
      return nil
    #endif
  }

  /// The periods that ended since the last call (0 when none: the read would block).
  static func takeExpirations(_ fd: Int32) -> UInt64 {
    var count: UInt64 = 0
    let got = withUnsafeMutableBytes(of: &count) { read(fd, $0.baseAddress, $0.count) }
    return got == MemoryLayout<UInt64>.size ? count : 0
  }

  /// Closes the descriptor.
  static func close(_ fd: Int32) { closeDescriptor(fd) }
}

/// Internal: the inotify descriptor an `EntryWatcher` polls (Linux only).
enum EntryNotifications {
  #if os(Linux)
    /// What an `EntryWatcher` asks for: entries created, deleted, moved in or out, attributes
    /// changed, and the watched path itself deleted or moved; not `IN_MODIFY` (contents
    /// written) nor `IN_ACCESS` / `IN_OPEN` / `IN_CLOSE_*`.
    static let mask =
      UInt32(IN_ATTRIB) | UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_DELETE_SELF)
      | UInt32(IN_MOVE_SELF) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO)

    /// A non-blocking descriptor watching `path` with `mask`, or a negated errno when it cannot
    /// be had (nothing is left open then).
    static func open(watching path: String) -> Int32 {
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { return -errno }
      guard inotify_add_watch(fd, path, mask) >= 0 else {
        let error = errno
        closeDescriptor(fd)
        return -error
      }
      return fd
    }

    /// Reads every event queued on `fd`, calling `body` with each one's mask and name (empty
    /// for the watched path itself); returns 0, or a negated errno when a read failed.
    static func takeEvents(_ fd: Int32, _ body: (UInt32, UnsafeRawBufferPointer) -> Void) -> Int32 {
      // Room for at least one event with the longest name (NAME_MAX + 1 after the header).
      let capacity = 16 * 1024
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
      defer { buffer.deallocate() }
      while true {
        let count = read(fd, buffer.baseAddress, capacity)
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno }
        if count == 0 { return 0 }
        // Each event: wd (Int32), mask, cookie, len (UInt32), then len bytes of name, NUL-padded.
        var offset = 0
        while offset + 16 <= count {
          let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
          let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
          let field = UnsafeRawBufferPointer(
            rebasing: buffer[offset + 16..<min(offset + 16 + length, count)])
          body(mask, UnsafeRawBufferPointer(rebasing: field.prefix { $0 != 0 }))
          offset += 16 + length
        }
      }
    }
  #endif
}
