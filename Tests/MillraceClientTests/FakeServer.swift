import Foundation
import MillraceClient
import MillraceWire
import Testing

/// A listening socket the test drives by hand, on the test's own thread: the client connects
/// (the kernel completes it before `accept`), the test writes the replies ahead into the
/// accepted connection and reads back the requests the client sent. Deterministic, no threads.
final class FakeServer {
  /// What a client passes to `ControlClient(address:)`.
  let address: String
  private let listener: Int32
  private let directory: String?

  /// Listens on a Unix socket in a fresh directory, or on TCP 127.0.0.1 with a free port.
  init(tcp: Bool = false) throws {
    if tcp {
      directory = nil
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      self.listener = listener
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      try Self.check(Self.withSocketAddress(&address) { bind(listener, $0, length) })
      try Self.check(Self.withSocketAddress(&address) { getsockname(listener, $0, &length) })
      self.address = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    } else {
      let made = NSTemporaryDirectory() + "millrace-client-" + UUID().uuidString
      try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
      directory = made
      address = made + "/s.sock"
      let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      self.listener = listener
      var socketAddress = sockaddr_un()
      socketAddress.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: address.utf8) }
      let length = socklen_t(MemoryLayout<sockaddr_un>.size)
      try Self.check(Self.withSocketAddress(&socketAddress) { bind(listener, $0, length) })
    }
    try Self.check(listen(listener, 8))
  }

  deinit {
    close(listener)
    if let directory { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// The next connection, which must already have been made.
  func accept() throws -> Peer {
    let descriptor = Glibc.accept(listener, nil, nil)
    try Self.check(descriptor)
    return Peer(descriptor)
  }

  /// One accepted connection.
  final class Peer {
    private var descriptor: Int32
    private var decoder = RESPDecoder()

    init(_ descriptor: Int32) {
      self.descriptor = descriptor
      var timeout = timeval(tv_sec: 5, tv_usec: 0)
      setsockopt(
        descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    /// Writes `text` to the client, as it is.
    func write(_ text: String) {
      let bytes = Array(text.utf8)
      #expect(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
    }

    /// The next request the client sent, decoded.
    func request() throws -> [String] {
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        if let frame = try decoder.next() { return frame.strings }
        let count = read(descriptor, &chunk, chunk.count)
        guard count > 0 else { throw ControlClient.Failure(description: "no request") }
        decoder.append(chunk[0..<count])
      }
    }

    /// Closes the connection.
    func close() {
      if descriptor >= 0 { Glibc.close(descriptor) }
      descriptor = -1
    }
  }

  private static func withSocketAddress<Address>(
    _ address: inout Address, _ body: (UnsafeMutablePointer<sockaddr>) -> Int32
  ) -> Int32 {
    withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
    }
  }

  private static func check(_ result: Int32) throws {
    guard result >= 0 else {
      throw ControlClient.Failure(description: String(cString: strerror(errno)))
    }
  }
}
