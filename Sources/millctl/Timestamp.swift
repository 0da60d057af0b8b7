#if canImport(Glibc)
  import Glibc
#endif

/// The wall-clock time of day in the local time zone, `HH:MM:SS.mmm`, for `watch` lines.
enum Timestamp {
  /// The current time of day.
  static func now() -> String {
    var clock = timespec()
    clock_gettime(CLOCK_REALTIME, &clock)
    var parts = tm()
    var seconds = clock.tv_sec
    localtime_r(&seconds, &parts)
    let fields = [parts.tm_hour, parts.tm_min, parts.tm_sec].map { padded(Int($0), 2) }
    return fields.joined(separator: ":") + "." + padded(clock.tv_nsec / 1_000_000, 3)
  }

  private static func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
