#if canImport(Glibc)
  import Glibc
#endif

/// The terminal on standard input switched to raw mode (no echo, no line buffering, no
/// signals from ^C) while a line is edited; output processing stays on, so `\n` still starts
/// a new line. Between lines the terminal is back in its normal mode, so ^C interrupts a
/// running command (such as a `SUBSCRIBE`) as usual.
enum RawTerminal {
  /// Runs `body` with the terminal in raw mode and restores it afterwards; returns nil,
  /// without running `body`, when the terminal cannot be switched.
  static func withRawMode<T>(_ body: () -> T) -> T? {
    var original = termios()
    guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
    var raw = original
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    raw.c_cflag |= tcflag_t(CS8)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { controls in
      controls[Int(VMIN)] = 1
      controls[Int(VTIME)] = 0
    }
    // TCSANOW, not TCSAFLUSH: keys typed ahead (or pasted) are kept.
    guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
    defer { tcsetattr(STDIN_FILENO, TCSANOW, &original) }
    return body()
  }

  /// The terminal's width in columns (80 when unknown).
  static var columns: Int {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }
}
