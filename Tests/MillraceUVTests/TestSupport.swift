import Foundation
import MillraceUV
import MillraceWire
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Runs `loop` until something calls `loop.stop()`, or fails the test after `seconds`.
/// Returns whether the loop stopped in time.
@discardableResult
func runLoop(
  _ loop: EventLoop, timeout seconds: Int = 20, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  var timedOut = false
  let watchdog = LoopTimer(loop: loop) { _ in
    timedOut = true
    loop.stop()
  }
  watchdog.start(after: .seconds(seconds))
  loop.run()
  watchdog.close()
  if timedOut {
    Issue.record("the loop did not stop within \(seconds) s", sourceLocation: sourceLocation)
  }
  return !timedOut
}

/// Runs `loop` until the client threads counted by `tally` reported `count` results (or the
/// timeout of `runLoop` fails the test).
func runLoop(
  _ loop: EventLoop, until tally: Tally, reports count: Int, timeout seconds: Int = 20,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let poll = LoopTimer(loop: loop) { _ in if tally.done >= count { loop.stop() } }
  poll.start(after: .milliseconds(5), repeat: .milliseconds(5))
  runLoop(loop, timeout: seconds, sourceLocation: sourceLocation)
  poll.close()
}

/// Milliseconds elapsed since `start` (a `uv_hrtime` reading).
func millisecondsSince(_ start: UInt64, loop: EventLoop) -> Double {
  Double(loop.now - start) / 1_000_000
}

/// A fresh private directory under /tmp with a short path (Unix socket paths are limited).
func makeTemporaryDirectory() -> String {
  var template = Array("/tmp/mruv-XXXXXX".utf8CString)
  let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
  precondition(result != nil, "mkdtemp failed")
  return String(cString: result!)
}

func removeDirectory(_ path: String) {
  try? FileManager.default.removeItem(atPath: path)
}

/// Bytes of a RESP array of bulk strings.
func respRequest(_ parts: [String]) -> [UInt8] {
  RESPWriter.request(parts)
}

/// Bytes of one RESP bulk string reply.
func respBulk(_ text: String) -> [UInt8] {
  var writer = RESPWriter()
  writer.bulkString(text)
  return writer.bytes
}

/// Thread-safe counters for client threads. (NSLock rather than `Mutex`: ThreadSanitizer
/// understands pthread locks, not the futexes `Mutex` uses on Linux.)
final class Tally: @unchecked Sendable {
  private let lock = NSLock()
  private var finished = 0
  private var messages: [String] = []

  func succeed() { lock.withLock { finished += 1 } }
  func fail(_ message: String) {
    lock.withLock {
      finished += 1
      messages.append(message)
    }
  }
  var done: Int { lock.withLock { finished } }
  var failures: [String] { lock.withLock { messages } }
}

/// What a descriptor refers to (device and inode), to tell later whether it was closed:
/// the number alone may be reused at once by a test running in parallel.
func identity(of fd: Int32) -> [UInt64]? {
  var info = stat()
  guard fstat(fd, &info) == 0 else { return nil }
  return [UInt64(info.st_dev), UInt64(info.st_ino)]
}

/// Whether `fd` no longer refers to the object it referred to when `before` was taken.
func isClosed(_ fd: Int32, was before: [UInt64]?) -> Bool {
  before != nil && identity(of: fd) != before
}

/// Starts `body` on a new OS thread (not the cooperative pool, which the loop may be blocking).
func spawnThread(_ body: @escaping @Sendable () -> Void) {
  Thread.detachNewThread(body)
}

/// Blocking POSIX socket clients for tests, used off the loop thread.
enum TestClient {
  /// Connects to a TCP address; returns the descriptor or -1.
  static func connectTCP(host: String = "127.0.0.1", port: Int) -> Int32 {
    let v6 = host.contains(":")
    let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    setTimeouts(fd)
    var result: Int32 = -1
    if v6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = UInt16(port).bigEndian
      inet_pton(AF_INET6, host, &address.sin6_addr)
      result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = UInt16(port).bigEndian
      inet_pton(AF_INET, host, &address.sin_addr)
      result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    }
    if result != 0 {
      close(fd)
      return -1
    }
    return fd
  }

  /// Connects to a Unix socket; returns the descriptor or -1.
  static func connectUnix(path: String, receiveBuffer: Int32? = nil) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    setTimeouts(fd)
    if var size = receiveBuffer {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if result != 0 {
      close(fd)
      return -1
    }
    return fd
  }

  /// 10 s receive and send timeouts, so a test client never blocks for ever.
  static func setTimeouts(_ fd: Int32, seconds: Int = 10) {
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Sends every byte (no SIGPIPE). Returns false on error.
  @discardableResult
  static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { raw in
        Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
      }
      if sent <= 0 { return false }
      offset += sent
    }
    return true
  }

  /// Reads exactly `count` bytes; `nil` on timeout, error or end of stream first.
  static func read(_ fd: Int32, count: Int) -> [UInt8]? {
    var result = [UInt8](repeating: 0, count: count)
    var offset = 0
    while offset < count {
      let got = result[offset...].withUnsafeMutableBytes { raw in
        recv(fd, raw.baseAddress, raw.count, 0)
      }
      if got <= 0 { return nil }
      offset += got
    }
    return result
  }

  /// Reads until the peer closes (or an error or timeout); returns what arrived and whether
  /// the stream ended cleanly or by reset (as opposed to a timeout).
  static func readToEnd(_ fd: Int32) -> (bytes: [UInt8], closed: Bool) {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if got > 0 {
        result.append(contentsOf: chunk[0..<got])
      } else if got == 0 {
        return (result, true)
      } else {
        return (result, errno == ECONNRESET || errno == EPIPE)
      }
    }
  }
}

/// A boolean shared between threads.
final class SharedFlag: Sendable {
  private let value = Atomic<Bool>(false)
  func set() { value.store(true, ordering: .releasing) }
  var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A counter shared between threads.
final class SharedCounter: Sendable {
  private let value = Atomic<Int>(0)
  func increment() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// `loop.close()`, but a hang cannot stall the test run: if it has not returned within
/// `seconds`, the process aborts with a message (a failed run, never a stuck one).
func closeWithin(
  _ loop: EventLoop, seconds: Int = 20, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let finished = SharedFlag()
  let place = "\(sourceLocation.fileID):\(sourceLocation.line)"
  spawnThread {
    for _ in 0..<(seconds * 100) {
      if finished.isSet { return }
      usleep(10_000)
    }
    let message = Array("EventLoop.close() hung for \(seconds) s at \(place)\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
  }
  defer { finished.set() }
  try loop.close()
}
