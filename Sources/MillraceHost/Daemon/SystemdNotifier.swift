#if canImport(Glibc)
  import Glibc
#endif

/// Sends sd_notify messages (`READY=1`, `RELOADING=1`, `STOPPING=1`) to the socket named by
/// `NOTIFY_SOCKET`, as systemd's `Type=notify` services do; does nothing when it is unset.
/// A leading `@` names an abstract socket.
public struct SystemdNotifier: Sendable {
  private let path: String?

  /// Reads `NOTIFY_SOCKET` from the environment.
  public init(environment: [String: String]) {
    path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Whether a notify socket is configured.
  public var isEnabled: Bool { path != nil }

  /// Sends `message` (for example `READY=1`); returns false when it could not be sent.
  @discardableResult
  public func notify(_ message: String) -> Bool {
    guard let path else { return false }
    let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: bytes)
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    let sent = message.withCString { text in
      withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(descriptor, text, strlen(text), Int32(MSG_NOSIGNAL), $0, length)
        }
      }
    }
    return sent >= 0
  }
}
