#if canImport(Glibc)
  import Glibc
#endif

/// Unbuffered writes to the standard streams, so that output reaches a pipe at once (`watch`,
/// `repl`) and interleaves correctly with the line editor's own terminal writes.
enum Console {
  /// Writes `text` and a newline to standard output.
  static func line(_ text: String) {
    write(text + "\n")
  }

  /// Writes `text` as is to standard output.
  static func write(_ text: String) {
    write(text, to: STDOUT_FILENO)
  }

  /// Writes `text` and a newline to standard error.
  static func error(_ text: String) {
    write(text + "\n", to: STDERR_FILENO)
  }

  /// Whether standard input and standard output are both terminals (an interactive session).
  static var isInteractive: Bool {
    isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
  }

  private static func write(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      bytes = bytes.dropFirst(written)
    }
  }
}
