import CLibUV

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a `StreamServer` listens: a TCP host and port, or a Unix domain socket path.
public enum ListenAddress: Sendable, Hashable, CustomStringConvertible {
  /// TCP on `host` (an IPv4 or IPv6 literal, or a name resolved once at bind time) and `port`
  /// (0 picks a free port; read the chosen one from `StreamServer.address`).
  case tcp(host: String, port: Int)
  /// A Unix domain stream socket at `path`.
  case unix(path: String)

  /// The IPv4 loopback address, the default host.
  public static let loopbackHost = "127.0.0.1"

  /// TCP on the IPv4 loopback interface.
  public static func loopback(port: Int) -> ListenAddress {
    .tcp(host: loopbackHost, port: port)
  }

  /// Parses `host:port`, `[ipv6]:port`, `:port` or a bare `port` (both on loopback: a host is
  /// never exposed unless given explicitly), or, when the text contains a `/`, a Unix socket
  /// path. Throws `UVError.invalidArgument` for anything else.
  public init(parsing text: String) throws(UVError) {
    if text.contains("/") {
      self = .unix(path: text)
      return
    }
    var host = Self.loopbackHost
    var portText = Substring(text)
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { throw .invalidArgument }
      host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      guard rest.hasPrefix(":") else { throw .invalidArgument }
      portText = rest.dropFirst()
    } else if let colon = text.lastIndex(of: ":") {
      let hostPart = text[..<colon]
      guard !hostPart.contains(":") else { throw .invalidArgument }  // bare IPv6 needs brackets
      if !hostPart.isEmpty { host = String(hostPart) }
      portText = text[text.index(after: colon)...]
    }
    guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else {
      throw .invalidArgument
    }
    self = .tcp(host: host, port: port)
  }

  /// `host:port`, `[ipv6]:port`, or the socket path.
  public var description: String {
    switch self {
    case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    case .unix(let path): path
    }
  }

  /// Resolves a TCP address to a socket address (literals first, then `getaddrinfo`).
  static func resolve(host: String, port: Int) throws(UVError) -> sockaddr_storage {
    var storage = sockaddr_storage()
    let ok = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
      if uv_ip4_addr(host, Int32(port), raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self))
        == 0
      {
        return true
      }
      return uv_ip6_addr(
        host, Int32(port), raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)) == 0
    }
    if ok { return storage }
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var result: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
      throw UVError(UV_EAI_NONAME)
    }
    defer { freeaddrinfo(result) }
    withUnsafeMutableBytes(of: &storage) { raw in
      raw.baseAddress!.copyMemory(
        from: first.pointee.ai_addr, byteCount: Int(first.pointee.ai_addrlen))
    }
    return storage
  }

  /// Formats a socket address as `host:port` / `[host]:port`.
  static func describe(_ address: UnsafePointer<sockaddr>) -> (host: String, port: Int)? {
    var name = [CChar](repeating: 0, count: 64)
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
      return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
        uv_ip4_name(v4, &name, name.count)
        return (
          String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
          Int(UInt16(bigEndian: v4.pointee.sin_port))
        )
      }
    case AF_INET6:
      return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
        uv_ip6_name(v6, &name, name.count)
        return (
          String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
          Int(UInt16(bigEndian: v6.pointee.sin6_port))
        )
      }
    default:
      return nil
    }
  }
}
