import Foundation
import MillraceClient
import Testing

/// Helpers of the reliability tests (docs/reliability.md): the daemon's memory and
/// descriptors from /proc, raw sockets for hostile clients, and a latency probe.
extension DaemonProcess {
  /// The daemon's process id.
  var pid: pid_t { process?.processIdentifier ?? -1 }

  /// The daemon's resident set (VmRSS), in KiB.
  var residentKiB: Int { Self.statusField("VmRSS", of: pid) }

  /// The daemon's open file descriptors.
  var openDescriptors: Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
  }

  static func statusField(_ key: String, of pid: pid_t) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return -1
    }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
      // "VmRSS:\t  1234 kB", "THP_enabled:\t1": the value after the key, whatever the blanks.
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      return fields.count > 1 ? Int(fields[1]) ?? -1 : -1
    }
    return -1
  }

  /// `STATS` as a dictionary, asked on `client` (by default a new connection, which then
  /// counts in `connected_clients`).
  func stats(on client: ControlClient? = nil) throws -> [String: String] {
    guard case .bulk(let text?) = try (client ?? self.client()).call("STATS") else { return [:] }
    var result: [String: String] = [:]
    for line in text.split(separator: "\r\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
    }
    return result
  }

  /// Polls `condition` every 20 ms for up to `seconds`.
  func eventually(seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
      if try condition() { return true }
      usleep(20_000)
    } while Date() < deadline
    return false
  }
}

/// A raw Unix-socket client with send and receive timeouts, for clients that misbehave.
final class RawSocket {
  let descriptor: Int32

  /// Connects to `path`; throws the errno text.
  init(path: String, timeoutSeconds: Int = 10) throws {
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw ControlClient.Failure(description: "socket") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw ControlClient.Failure(description: "connect: \(reason)")
    }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(
      descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(descriptor) }

  /// Sends `bytes`; returns how many went out before an error (all of them when none).
  @discardableResult
  func send(_ bytes: [UInt8]) -> Int {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { return offset }
      offset += sent
    }
    return offset
  }

  /// Reads until the peer closes or `limit` bytes arrived, whichever is first.
  func readAll(limit: Int = 1 << 20) -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while result.count < limit {
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      result += chunk[0..<count]
    }
    return result
  }
}

/// PINGs the daemon on its own connection from a background thread, recording round trips,
/// until stopped: "the others keep their latency".
final class LatencyProbe: @unchecked Sendable {
  private let lock = NSLock()
  private var samples: [Double] = []
  private var failures: [String] = []
  private var running = true
  private let done = DispatchSemaphore(value: 0)

  init(socketPath: String, interval: useconds_t = 2_000) {
    Thread.detachNewThread { [self] in
      defer { done.signal() }
      do {
        let client = try ControlClient(address: socketPath, timeoutSeconds: 10)
        repeat {  // at least one round trip, however soon the probe is stopped
          let start = DispatchTime.now().uptimeNanoseconds
          let reply = try client.call("PING")
          let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
          lock.withLock {
            samples.append(elapsed)
            if reply != .simple("PONG") { failures.append("PING answered \(reply)") }
          }
          usleep(interval)
        } while lock.withLock({ running })
      } catch {
        lock.withLock { failures.append("\(error)") }
      }
    }
  }

  /// Stops the probe and returns its round trips (seconds, sorted) and problems.
  func stop() -> (samples: [Double], failures: [String]) {
    lock.withLock { running = false }
    done.wait()
    return lock.withLock { (samples.sorted(), failures) }
  }
}

/// Whether this test process (and so the daemon, built alongside it) runs under ASan or TSan:
/// their allocators keep freed memory (quarantine, shadow), so RSS bounds do not apply and are
/// only printed.
let underSanitizer: Bool = ["__asan_init", "__tsan_init"].contains { (symbol: String) in
  dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) != nil
}

/// How much a latency bound scales by in this test process: a sanitizer makes the daemon
/// itself several times slower (a bystander's PING p50 2.6-2.8 ms plain, 9.2 under ASan, 18-22
/// under TSan on one VM). Those runs check for races and leaks; the plain build keeps the bounds.
let sanitizerSlowdown: Double = underSanitizer ? 4 : 1

/// The `fraction` quantile of sorted samples, in milliseconds.
func milliseconds(_ sorted: [Double], _ fraction: Double) -> Double {
  guard !sorted.isEmpty else { return .infinity }
  let index = min(sorted.count - 1, Int(Double(sorted.count) * fraction))
  return (sorted[index] * 1000 * 100).rounded() / 100
}
