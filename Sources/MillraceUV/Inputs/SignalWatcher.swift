import CLibUV

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Watches one POSIX signal (`uv_signal_t`) and calls a closure on the loop thread each time it
/// arrives.
///
/// Guarantees:
/// - The closure runs as an ordinary loop callback (not in signal context), so it may do
///   anything, including `loop.stop()`.
/// - Signals that arrive close together may be coalesced into one call (libuv semantics).
/// - While the watcher is open the signal's default action (for example terminating on
///   SIGTERM) is replaced; `close()` restores it once no other watcher on the signal remains.
public final class SignalWatcher: LoopHandle<uv_signal_t> {
  /// A signal number with names for the ones a daemon handles.
  public struct Signal: Hashable, Sendable, CustomStringConvertible {
    /// The POSIX signal number.
    public let rawValue: Int32
    /// Wraps a POSIX signal number.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }
    /// SIGINT (Ctrl-C).
    public static let interrupt = Signal(SIGINT)
    /// SIGTERM (polite termination request).
    public static let terminate = Signal(SIGTERM)
    /// SIGHUP (by convention: reload configuration).
    public static let hangup = Signal(SIGHUP)
    /// The conventional name, for example `"SIGTERM"`.
    public var description: String {
      switch rawValue {
      case SIGINT: "SIGINT"
      case SIGTERM: "SIGTERM"
      case SIGHUP: "SIGHUP"
      default: "signal \(rawValue)"
      }
    }
  }

  /// The watched signal.
  public let signal: Signal
  private var handler: ((Signal) -> Void)?

  /// Starts watching `signal`; `handler` runs on the loop thread for each delivery.
  public init(loop: EventLoop, signal: Signal, handler: @escaping (Signal) -> Void)
    throws(UVError)
  {
    self.signal = signal
    self.handler = handler
    super.init(on: loop)
    let handle = try adopt { uv_signal_init(loop.raw, $0) }
    let started = uv_signal_start(
      handle,
      { raw, _ in
        withOwner(of: asHandle(raw!), as: SignalWatcher.self) { $0.handler?($0.signal) }
      }, signal.rawValue)
    if started < 0 {
      shutdown()
      throw UVError(started)
    }
  }

  override func willCloseHandle() {
    handler = nil
  }
}
