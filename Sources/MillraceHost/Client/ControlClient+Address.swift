import MillraceUV

extension ControlClient {
  /// Whether `text` is a TCP address `ControlClient(address:)` accepts: `host:port`,
  /// `[ipv6]:port`, `:port` or a bare port (the last two mean loopback). A text with a `/`
  /// is a socket path, not a TCP address.
  public static func isTCPAddress(_ text: String) -> Bool {
    guard !text.contains("/"), let address = try? ListenAddress(parsing: text) else {
      return false
    }
    if case .tcp = address { return true }
    return false
  }

  /// The address `ControlClient(address:)` reads as the Unix socket `path`, even when the
  /// path has no `/` (a bare `d.sock` would otherwise not be a socket path).
  public static func socketAddress(_ path: String) -> String {
    path.contains("/") ? path : "./" + path
  }
}
