extension ControlClient {
  /// Where a client connects: a Unix socket path or a TCP host and port.
  public enum Address: Hashable, Sendable, CustomStringConvertible {
    /// A Unix domain stream socket at `path`.
    case unix(path: String)
    /// TCP to `host` (a name, or an IPv4 or IPv6 literal) on `port` (1...65535).
    case tcp(host: String, port: Int)

    /// The host of `:port` and of a bare port.
    public static let loopbackHost = "127.0.0.1"

    /// Parses a socket path (any text containing a `/`), or `host:port`, `[ipv6]:port`,
    /// `:port` or a bare `port` (the last two on 127.0.0.1, like the daemon's `--listen`).
    /// Nil for anything else: no port, a port outside 1...65535, an empty host, an IPv6 host
    /// without brackets.
    public init?(parsing text: String) {
      if text.contains("/") {
        self = .unix(path: text)
        return
      }
      var host = Substring(Self.loopbackHost)
      var port = Substring(text)
      if text.hasPrefix("[") {
        guard let close = text.firstIndex(of: "]"), text[close...].dropFirst().first == ":"
        else { return nil }
        host = text[text.index(after: text.startIndex)..<close]
        port = text[close...].dropFirst(2)
      } else if let colon = text.lastIndex(of: ":") {
        guard !text[..<colon].contains(":") else { return nil }
        if colon > text.startIndex { host = text[..<colon] }
        port = text[text.index(after: colon)...]
      }
      guard let number = Int(port), (1...65535).contains(number), !host.isEmpty else {
        return nil
      }
      self = .tcp(host: String(host), port: number)
    }

    /// The socket path, or `host:port` (`[host]:port` for IPv6).
    public var description: String {
      switch self {
      case .unix(let path): path
      case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
      }
    }
  }

  /// Whether `text` is a TCP address `ControlClient(address:)` accepts: `host:port`,
  /// `[ipv6]:port`, `:port` or a bare port (the last two mean loopback). A text with a `/`
  /// is a socket path, not a TCP address.
  public static func isTCPAddress(_ text: String) -> Bool {
    if case .tcp? = Address(parsing: text) { return true }
    return false
  }

  /// The address `ControlClient(address:)` reads as the Unix socket `path`, even when the
  /// path has no `/` (a bare `d.sock` would otherwise not be a socket path).
  public static func socketAddress(_ path: String) -> String {
    path.contains("/") ? path : "./" + path
  }
}
