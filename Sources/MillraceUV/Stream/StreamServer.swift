import CLibUV
import MillraceWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A listening TCP (IPv4 or IPv6) or Unix domain stream socket whose connections are framed
/// into requests (lines or RESP2) and handed to a handler.
///
/// Guarantees:
/// - TCP binds exactly the host given (loopback unless a wider address is explicit). A Unix
///   socket path that holds a stale socket (nothing accepts on it) is replaced; a live one
///   fails with `EADDRINUSE` and any other file with `EEXIST`, so nothing of value is deleted.
///   The socket gets `socketMode` (default 0600) before it starts listening, so there is no
///   window with wider permissions; libuv unlinks it on close.
/// - Each accepted connection is a `Connection` with its own decoder, reply ordering and
///   back-pressure (see `Connection`). Memory per connection is bounded by `maxFrameLength`,
///   one read chunk (64 KiB, shared by the server) and `writeBufferLimit`; at most
///   `maxConnections` connections are kept, others are accepted and closed at once.
/// - Fairness: a connection hands out at most `requestsPerSlice` requests per loop iteration;
///   what it buffered beyond waits, in order, for the next iterations (see `Connection`).
/// - `onFrame` gets every complete request in order. `onFramingError` gets an over-long or
///   malformed request once; after it returns, the connection writes what is queued and closes
///   (the other connections carry on). `onClose` runs exactly once per connection, last.
/// - `close()` stops listening and closes every connection; no handler runs afterwards
///   except the `onClose` of connections still open, and the handlers are released.
public final class StreamServer: LoopHandle<uv_stream_t> {
  /// How a connection's bytes are split into requests.
  public enum Framing: Sendable, Equatable {
    /// Newline-terminated lines (`\n` or `\r\n`); each frame has one part, the line.
    case lines
    /// RESP2 requests: arrays of bulk strings or inline commands.
    case resp
  }

  /// Limits and socket options.
  public struct Configuration: Sendable {
    /// How requests are framed. Default `.resp`.
    public var framing: Framing = .resp
    /// Longest accepted request in bytes (on the wire for RESP, terminator excluded for
    /// lines). Default 64 KiB.
    public var maxFrameLength = RESPDecoder.defaultMaxFrameLength
    /// Bytes a connection may have queued and not yet written before it is closed with
    /// `.writeLimitExceeded` (a client that does not read its replies). Default 1 MiB.
    public var writeBufferLimit = 1 << 20
    /// Most simultaneous connections. Default 1024.
    public var maxConnections = 1024
    /// `listen(2)` backlog. Default 511.
    public var backlog: Int32 = 511
    /// Permissions of a Unix socket file. Default 0600 (owner only).
    public var socketMode: mode_t = 0o600
    /// Disable Nagle's algorithm on TCP connections (lower latency). Default `true`.
    public var noDelay = true
    /// The most requests one connection hands out in one loop iteration (at least 1). A
    /// connection with more buffered stops reading its socket and hands out the rest in the
    /// following iterations (`Connection`), so a client that pipelines thousands of requests
    /// cannot hold the loop: every other connection, timer and turn gets its share between two
    /// slices. Default 128.
    public var requestsPerSlice = 128

    /// The defaults.
    public init() {}

    /// The defaults with another framing.
    public init(framing: Framing) {
      self.framing = framing
    }
  }

  /// The configuration the server was created with.
  public let configuration: Configuration
  /// The bound address; for TCP with port 0, the port the system picked.
  public private(set) var address: ListenAddress

  @exclusivity(unchecked) var onFrame: ((Connection, Frame) -> Void)?
  var onFramingError: ((Connection, FramingError) -> Void)?
  var onConnect: ((Connection) -> Void)?
  var onClose: ((Connection, Connection.CloseReason) -> Void)?

  private var listenerClosed = false
  private var closed = false
  private var connections: [UInt64: Connection] = [:]
  private let isUnix: Bool
  let readChunk: UnsafeMutableRawBufferPointer

  /// Connections accepted so far (not counting those refused over `maxConnections`).
  public private(set) var acceptedCount = 0
  /// Connections refused because `maxConnections` were open, or because accepting failed.
  public private(set) var refusedCount = 0

  /// Binds `address` and starts listening.
  ///
  /// - Parameters:
  ///   - loop: the loop the server and its connections run on.
  ///   - address: where to listen: a TCP host and port, or a Unix socket path.
  ///   - configuration: framing, limits and socket options.
  ///   - onFrame: each request, with the connection to reply on.
  ///   - onFramingError: an over-long or malformed request; the default writes Redis's
  ///     `-ERR Protocol error: ...` for RESP framing and nothing for lines.
  ///   - onConnect: a new connection, before its first request.
  ///   - onClose: a connection closed, with the reason.
  /// - Throws: the libuv error (`EADDRINUSE`, `EACCES`, `ENAMETOOLONG`, `EEXIST`, ...).
  public init(
    loop: EventLoop, address: ListenAddress, configuration: Configuration = Configuration(),
    onFrame: @escaping (Connection, Frame) -> Void,
    onFramingError: ((Connection, FramingError) -> Void)? = nil,
    onConnect: ((Connection) -> Void)? = nil,
    onClose: ((Connection, Connection.CloseReason) -> Void)? = nil
  ) throws(UVError) {
    self.configuration = configuration
    self.address = address
    self.onFrame = onFrame
    self.onFramingError = onFramingError ?? StreamServer.defaultFramingErrorReply(configuration)
    self.onConnect = onConnect
    self.onClose = onClose
    switch address {
    case .tcp: isUnix = false
    case .unix: isUnix = true
    }
    readChunk = .allocate(byteCount: 64 * 1024, alignment: 16)
    super.init(on: loop)
    // From here on the object is fully initialised: a throw runs deinit, which frees the chunk.
    let listener =
      switch address {
      case .tcp(let host, let port): try bindTCP(host: host, port: port)
      case .unix(let path): try bindUnix(path: path)
      }
    let rc = uv_listen(listener, configuration.backlog) { handle, status in
      withOwner(of: asHandle(handle!), as: StreamServer.self) { $0.accept(status: status) }
    }
    if rc < 0 {
      discardHandle(listener)
      throw UVError(rc)
    }
    own(listener)
  }

  deinit {
    readChunk.deallocate()
  }

  /// Number of open connections.
  public var connectionCount: Int { connections.count }

  /// The open connections, in no particular order.
  public var openConnections: [Connection] { Array(connections.values) }

  /// Stops listening and closes every connection (reason `.serverClosed`).
  override func willCloseHandle() {
    closed = true
    onConnect = nil
    for connection in Array(connections.values) { connection.closeNow(.serverClosed) }
  }

  override func didCloseHandle() {
    listenerClosed = true
    releaseHandlersIfDone()
  }

  func connectionDidClose(_ connection: Connection, reason: Connection.CloseReason) {
    connections[connection.id] = nil
    onClose?(connection, reason)
    releaseHandlersIfDone()
  }

  private func releaseHandlersIfDone() {
    guard listenerClosed, connections.isEmpty else { return }
    onFrame = nil
    onFramingError = nil
    onClose = nil
  }

  private func accept(status: Int32) {
    guard !closed, let listener = handle else { return }
    if status < 0 {
      refusedCount += 1
      return
    }
    let client: UnsafeMutablePointer<uv_stream_t>
    if isUnix {
      let pipe = allocateUV(uv_pipe_t.self)
      uv_pipe_init(loop.raw, pipe, 0)
      client = asStream(pipe)
    } else {
      let tcp = allocateUV(uv_tcp_t.self)
      uv_tcp_init(loop.raw, tcp)
      client = asStream(tcp)
    }
    guard uv_accept(listener, client) == 0, connections.count < configuration.maxConnections
    else {
      refusedCount += 1
      discardHandle(client)
      return
    }
    acceptedCount += 1
    if !isUnix && configuration.noDelay {
      uv_tcp_nodelay(UnsafeMutableRawPointer(client).assumingMemoryBound(to: uv_tcp_t.self), 1)
    }
    let id = loop.takeConnectionID()
    let connection = Connection(
      server: self, stream: client, id: id, peer: peerName(client), reader: makeReader())
    connections[id] = connection
    onConnect?(connection)
    connection.start()
  }

  /// A decoder of the configured framing, for a new connection.
  private func makeReader() -> any RequestReader {
    switch configuration.framing {
    case .resp: RESPRequestReader(maxFrameLength: max(16, configuration.maxFrameLength))
    case .lines: LineRequestReader(maxLineLength: configuration.maxFrameLength)
    }
  }

  private func peerName(_ client: UnsafeMutablePointer<uv_stream_t>) -> String {
    if isUnix { return "unix:\(address)" }
    var storage = sockaddr_storage()
    var length = Int32(MemoryLayout<sockaddr_storage>.size)
    return withUnsafeMutablePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        let tcp = UnsafeMutableRawPointer(client).assumingMemoryBound(to: uv_tcp_t.self)
        guard uv_tcp_getpeername(tcp, address, &length) == 0,
          let (host, port) = ListenAddress.describe(address)
        else { return "tcp:?" }
        return ListenAddress.tcp(host: host, port: port).description
      }
    }
  }

  private func bindTCP(
    host: String, port: Int
  ) throws(UVError) -> UnsafeMutablePointer<uv_stream_t> {
    var storage = try ListenAddress.resolve(host: host, port: port)
    let tcp = allocateUV(uv_tcp_t.self)
    uv_tcp_init(loop.raw, tcp)
    let rc = withUnsafePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(tcp, $0, 0) }
    }
    if rc < 0 {
      discardHandle(tcp)
      throw UVError(rc)
    }
    var bound = sockaddr_storage()
    var length = Int32(MemoryLayout<sockaddr_storage>.size)
    withUnsafeMutablePointer(to: &bound) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        if uv_tcp_getsockname(tcp, address, &length) == 0,
          let (host, port) = ListenAddress.describe(address)
        {
          self.address = .tcp(host: host, port: port)
        }
      }
    }
    return asStream(tcp)
  }

  private func bindUnix(path: String) throws(UVError) -> UnsafeMutablePointer<uv_stream_t> {
    guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
      throw UVError(UV_ENAMETOOLONG)
    }
    try Self.removeStaleSocket(at: path)
    let pipe = allocateUV(uv_pipe_t.self)
    uv_pipe_init(loop.raw, pipe, 0)
    var rc = uv_pipe_bind(pipe, path)
    if rc == 0 && chmod(path, configuration.socketMode) != 0 {
      rc = -errno
    }
    if rc < 0 {
      discardHandle(pipe)  // closing a bound pipe unlinks its path
      throw UVError(rc)
    }
    return asStream(pipe)
  }

  /// Removes `path` if it is a socket nobody accepts on; refuses to touch anything else.
  private static func removeStaleSocket(at path: String) throws(UVError) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }  // nothing there
    guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw UVError(UV_EEXIST) }
    let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard probe >= 0 else { throw UVError(-errno) }
    defer { closeDescriptor(probe) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
    }
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if connected == 0 { throw UVError(UV_EADDRINUSE) }
    guard errno == ECONNREFUSED || errno == ENOENT else { throw UVError(-errno) }
    unlink(path)
  }

  private static func defaultFramingErrorReply(
    _ configuration: Configuration
  ) -> ((Connection, FramingError) -> Void)? {
    guard configuration.framing == .resp else { return nil }
    let limit = configuration.maxFrameLength
    return { connection, error in
      connection.write { writer in
        switch error {
        case .tooLong: writer.error("ERR", "Protocol error: request exceeds \(limit) bytes")
        case .protocol(let reason): writer.error("ERR", "Protocol error: \(reason)")
        }
      }
    }
  }
}
