import MillraceWire

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking control-protocol client over a Unix socket or TCP, for `millctl` and tests.
///
/// Requests go out as RESP arrays of bulk strings; `send(_:)` may be called several times
/// before reading (pipelining), and replies come back in request order. Replies are read in
/// RESP2 or RESP3 alike (`hello(protocol:)` asks for RESP3). In RESP3 the server may also send
/// push frames (`.push`, pub/sub messages among them) between replies: `read()` returns
/// whatever comes next, `readReply()` (and so `call`) the next reply that is not a push frame,
/// `readPush()` the next push frame; what one of them reads past is kept, in order, for the
/// others. Not thread-safe: use one client per thread.
public final class ControlClient {
  /// Why a connection or an exchange failed.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    /// What happened.
    public var description: String

    /// Creates a failure.
    public init(description: String) {
      self.description = description
    }
  }

  private let descriptor: Int32
  private var parser = RESPReplyParser()
  private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  /// Values received but not returned yet, because a `readReply()` or a `readPush()` looked
  /// for the other kind; oldest first.
  private var pending: [RESPValue] = []

  /// The protocol the server replies in: `.resp2` until a `hello(protocol:)` succeeds.
  public private(set) var protocolVersion = RESPVersion.resp2

  /// Connects to `address`: a socket path (containing `/`) or `HOST:PORT` (see `Address`).
  public convenience init(address: String, timeoutSeconds: Int = 30) throws(Failure) {
    guard let target = Address(parsing: address) else {
      throw Failure(description: "bad address \(address)")
    }
    try self.init(address: target, timeoutSeconds: timeoutSeconds)
  }

  /// Connects to `address`. `timeoutSeconds` bounds each wait for a reply; 0 waits for ever.
  public convenience init(address: Address, timeoutSeconds: Int = 30) throws(Failure) {
    try self.init(address: address, timeoutMilliseconds: timeoutSeconds * 1000)
  }

  /// Connects to `address`. `timeoutMilliseconds` bounds the connection's set-up and each
  /// wait to send or for a reply; 0 waits for ever.
  public init(address: Address, timeoutMilliseconds: Int) throws(Failure) {
    switch address {
    case .unix(let path): descriptor = try Self.connectUnix(path)
    case .tcp(let host, let port):
      descriptor = try Self.connectTCP(host, port, timeoutMilliseconds: timeoutMilliseconds)
    }
    var timeout = timeval(
      tv_sec: timeoutMilliseconds / 1000, tv_usec: (timeoutMilliseconds % 1000) * 1000)
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      setsockopt(descriptor, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
  }

  deinit { close(descriptor) }

  private static func connectUnix(_ path: String) throws(Failure) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      close(fd)
      throw Failure(description: "socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw Failure(description: "cannot connect to \(path): \(reason) (is millraced running?)")
    }
    return fd
  }

  /// A connected TCP socket; with a timeout, the connection is set up without blocking and
  /// waited for at most that long.
  private static func connectTCP(_ host: String, _ port: Int, timeoutMilliseconds: Int)
    throws(Failure) -> Int32
  {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var result: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
      throw Failure(description: "cannot resolve \(host)")
    }
    defer { freeaddrinfo(result) }
    let fd = socket(
      first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    func failure(_ code: Int32) -> Failure {
      if fd >= 0 { close(fd) }
      return Failure(
        description:
          "cannot connect to \(host):\(port): \(String(cString: strerror(code))) (is millraced running?)"
      )
    }
    guard fd >= 0 else { throw failure(errno) }
    guard timeoutMilliseconds > 0 else {
      guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
        throw failure(errno)
      }
      return fd
    }
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    if connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
      guard errno == EINPROGRESS else { throw failure(errno) }
      var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard poll(&waiting, 1, Int32(clamping: timeoutMilliseconds)) == 1 else {
        throw failure(ETIMEDOUT)
      }
      var code: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
      guard code == 0 else { throw failure(code) }
    }
    _ = fcntl(fd, F_SETFL, flags)
    return fd
  }

  /// Sends one request without waiting for its reply.
  public func send(_ words: [String]) throws(Failure) {
    var writer = RESPWriter()
    writer.array(words)
    try sendRaw(writer.bytes)
  }

  /// Sends one request whose words are bytes (binary data such as a `DUMP` payload), without
  /// waiting for its reply.
  public func send(words: [[UInt8]]) throws(Failure) {
    var writer = RESPWriter()
    writer.arrayHeader(words.count)
    for word in words { writer.bulkString(word) }
    try sendRaw(writer.bytes)
  }

  /// Sends raw bytes (for tests of malformed input).
  public func sendRaw(_ bytes: [UInt8]) throws(Failure) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else {
        throw Failure(description: "send failed: \(String(cString: strerror(errno)))")
      }
      offset += sent
    }
  }

  /// Reads the next value received, a reply or a push frame; throws when the connection
  /// closed or timed out first.
  public func read() throws(Failure) -> RESPValue {
    pending.isEmpty ? try receive() : pending.removeFirst()
  }

  /// Reads the next reply that is not a push frame; push frames before it are kept for
  /// `readPush()`. (In RESP3 the replies to `SUBSCRIBE` and its kin are push frames: read them
  /// with `readPush()`.)
  public func readReply() throws(Failure) -> RESPValue {
    try take { !$0.isPush }
  }

  /// Reads the next push frame (a `.push`); replies before it are kept for `read()` and
  /// `readReply()`.
  public func readPush() throws(Failure) -> RESPValue {
    try take(\.isPush)
  }

  /// The first pending or received value that is `wanted`; others received meanwhile are
  /// kept.
  private func take(_ wanted: (RESPValue) -> Bool) throws(Failure) -> RESPValue {
    if let index = pending.firstIndex(where: wanted) { return pending.remove(at: index) }
    while true {
      let value = try receive()
      if wanted(value) { return value }
      pending.append(value)
    }
  }

  /// Parses the next value off the socket.
  private func receive() throws(Failure) -> RESPValue {
    while true {
      do {
        if let value = try parser.next() { return value }
      } catch {
        throw Failure(description: "malformed reply")
      }
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        throw Failure(
          description: count == 0
            ? "connection closed by the daemon" : "read failed: \(String(cString: strerror(errno)))"
        )
      }
      parser.append(chunk[0..<count])
    }
  }

  /// Sends one request and reads its reply (`readReply()`).
  public func call(_ words: String...) throws(Failure) -> RESPValue {
    try call(words)
  }

  /// Sends one request and reads its reply (`readReply()`).
  public func call(_ words: [String]) throws(Failure) -> RESPValue {
    try send(words)
    return try readReply()
  }

  /// Sends `HELLO version [AUTH user password] [SETNAME name]` and returns its reply: the
  /// server's properties (a map in RESP3, an array of keys and values in RESP2), or the error
  /// (Redis answers `-NOPROTO` for a version it does not speak). After a reply that is not an
  /// error, `protocolVersion` is `version`.
  @discardableResult
  public func hello(
    protocol version: RESPVersion, auth: (user: String, password: String)? = nil,
    clientName: String? = nil
  ) throws(Failure) -> RESPValue {
    var words = ["HELLO", String(version.rawValue)]
    if let auth { words += ["AUTH", auth.user, auth.password] }
    if let clientName { words += ["SETNAME", clientName] }
    let reply = try call(words)
    if reply.errorCode == nil { protocolVersion = version }
    return reply
  }
}

extension RESPValue {
  fileprivate var isPush: Bool {
    if case .push = self { return true }
    return false
  }
}
