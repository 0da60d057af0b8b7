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
