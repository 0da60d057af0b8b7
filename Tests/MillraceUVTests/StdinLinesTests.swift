import Foundation
import MillraceUV
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What `StdinLines` adds to `LineDecoder` (whose framing `FrameDecoderTests` checks): reading
/// each kind of descriptor, lines in order across reads, the last line and `onEnd` at the end
/// of input, an over-long line reported and skipped, pausing.
@Suite("Stdin lines from a pipe, a file and a terminal", .serialized)
struct StdinLinesTests {
  final class Collected {
    var lines: [String] = []
    var errors: [StdinLines.Failure] = []
    var ended = false
  }

  func reader(loop: EventLoop, fd: Int32, max: Int = 64 * 1024, into collected: Collected)
    throws -> StdinLines
  {
    try StdinLines(
      loop: loop, fd: fd, maxLineLength: max,
      onLine: { collected.lines.append(String(decoding: $0, as: UTF8.self)) },
      onEnd: {
        collected.ended = true
        loop.stop()
      },
      onError: { collected.errors.append($0) })
  }

  @Test func linesThroughAPipeWrittenInPiecesByAnotherThread() throws {
    let loop = try EventLoop()
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let collected = Collected()
    let readEnd = identity(of: fds[0])
    let lines = try reader(loop: loop, fd: fds[0], into: collected)
    #expect(lines.kind == .pipe)
    let writeEnd = fds[1]
    spawnThread {
      for piece in ["alpha\nbe", "ta\n", "gam", "ma"] {
        _ = piece.utf8CString.withUnsafeBufferPointer {
          write(writeEnd, $0.baseAddress, $0.count - 1)
        }
        usleep(5000)
      }
      close(writeEnd)
    }
    runLoop(loop, timeout: 10)
    #expect(collected.lines == ["alpha", "beta", "gamma"])
    #expect(collected.errors.isEmpty)
    #expect(collected.ended)
    try closeWithin(loop)
    #expect(isClosed(fds[0], was: readEnd), "the reader closed the pipe descriptor it owned")
  }

  @Test func linesFromARegularFileWithAnOverLongLine() throws {
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    let path = directory + "/input.txt"
    var text = ""
    for index in 0..<20_000 { text += "line \(index)\n" }
    text += String(repeating: "x", count: 100) + "\nafter\nlast"
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    let fd = open(path, O_RDONLY)
    #expect(fd >= 0)
    let loop = try EventLoop()
    let collected = Collected()
    let file = identity(of: fd)
    let lines = try reader(loop: loop, fd: fd, max: 20, into: collected)
    #expect(lines.kind == .file)
    runLoop(loop, timeout: 10)
    #expect(collected.lines.count == 20_002)
    #expect(collected.lines.prefix(2) == ["line 0", "line 1"])
    #expect(collected.lines.suffix(2) == ["after", "last"])
    #expect(collected.errors == [.lineTooLong])
    #expect(collected.ended)
    try closeWithin(loop)
    #expect(isClosed(fd, was: file), "the reader closed the descriptor it owned")
  }

  @Test func pausedReaderDeliversNothingUntilResumed() throws {
    let loop = try EventLoop()
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let collected = Collected()
    var reader: StdinLines?
    reader = try StdinLines(
      loop: loop, fd: fds[0],
      onLine: { line in
        collected.lines.append(String(decoding: line, as: UTF8.self))
        if collected.lines.count == 1 { reader?.pauseReading() }
      },
      onEnd: {
        collected.ended = true
        loop.stop()
      },
      onError: { collected.errors.append($0) })
    _ = "one\ntwo\nthree\n".utf8CString.withUnsafeBufferPointer {
      write(fds[1], $0.baseAddress, $0.count - 1)
    }
    close(fds[1])
    var whilePaused: [String] = []
    let check = LoopTimer(loop: loop) { _ in
      whilePaused = collected.lines
      reader?.resumeReading()
    }
    check.start(after: .milliseconds(100))
    runLoop(loop, timeout: 10)
    #expect(whilePaused == ["one"])
    #expect(collected.lines == ["one", "two", "three"])
    #expect(collected.ended)
    reader = nil
    try closeWithin(loop)
  }

  /// Opens a pseudo-terminal pair through /dev/ptmx (Glibc's Swift module lacks posix_openpt).
  static func openPseudoTerminal() -> (master: Int32, slave: Int32)? {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { return nil }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    let tiocsptlck: UInt = 0x4004_5431
    let tiocgptn: UInt = 0x8004_5430
    guard ioctl(master, tiocsptlck, &unlock) == 0, ioctl(master, tiocgptn, &number) == 0 else {
      close(master)
      return nil
    }
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard slave >= 0 else {
      close(master)
      return nil
    }
    return (master, slave)
  }

  @Test(.enabled(if: access("/dev/ptmx", R_OK | W_OK) == 0, "needs /dev/ptmx"))
  func linesFromATerminal() throws {
    let pair = try #require(Self.openPseudoTerminal(), "could not open a pseudo-terminal")
    let (master, slave) = pair
    defer { close(master) }
    let terminal = identity(of: slave)
    let loop = try EventLoop()
    let collected = Collected()
    let lines = try StdinLines(
      loop: loop, fd: slave,
      onLine: { line in
        collected.lines.append(String(decoding: line, as: UTF8.self))
        if collected.lines.count == 2 { loop.stop() }
      },
      onError: { collected.errors.append($0) })
    #expect(lines.kind == .tty)
    _ = "hello\nworld\n".utf8CString.withUnsafeBufferPointer {
      write(master, $0.baseAddress, $0.count - 1)
    }
    runLoop(loop, timeout: 10)
    #expect(collected.lines == ["hello", "world"])
    #expect(collected.errors.isEmpty)
    try closeWithin(loop)
    #expect(isClosed(slave, was: terminal), "the reader closed the terminal descriptor it owned")
  }
}
