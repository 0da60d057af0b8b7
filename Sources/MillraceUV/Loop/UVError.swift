import CLibUV

/// An error reported by libuv, carrying its negative error code (`UV_E*`).
///
/// Every throwing API of `MillraceUV` throws this type (typed throws), so a caller can switch on
/// `code` without casting. Equality compares codes only.
public struct UVError: Error, Equatable, Hashable, CustomStringConvertible, Sendable {
  /// The libuv error code (always negative, for example `UV_EADDRINUSE.rawValue`).
  public let code: Int32

  /// Wraps a libuv error code. A non-negative `code` is a programming error.
  public init(_ code: Int32) {
    precondition(code < 0, "UVError needs a negative libuv error code, got \(code)")
    self.code = code
  }

  /// Wraps a libuv error constant such as `UV_EINVAL`.
  public init(_ code: uv_errno_t) {
    self.init(code.rawValue)
  }

  /// The libuv error name, for example `"EADDRINUSE"`.
  public var name: String { String(cString: uv_err_name(code)) }

  /// `"<name>: <libuv message>"`, for example `"EADDRINUSE: address already in use"`.
  public var description: String { "\(name): \(String(cString: uv_strerror(code)))" }

  /// The end of a stream (`UV_EOF`).
  public static let endOfFile = UVError(UV_EOF)
  /// An invalid argument (`UV_EINVAL`), also used for an unparsable address.
  public static let invalidArgument = UVError(UV_EINVAL)
  /// The operation was cancelled (`UV_ECANCELED`).
  public static let cancelled = UVError(UV_ECANCELED)
  /// The object was already closed (`UV_EBADF`), for example submitting to a closed pool.
  public static let closed = UVError(UV_EBADF)
  /// The address is in use (`UV_EADDRINUSE`): a live server already listens there.
  public static let addressInUse = UVError(UV_EADDRINUSE)
  /// A file that is not a socket is in the way (`UV_EEXIST`).
  public static let fileExists = UVError(UV_EEXIST)
  /// A Unix socket path is too long for `sockaddr_un` (`UV_ENAMETOOLONG`).
  public static let nameTooLong = UVError(UV_ENAMETOOLONG)
  /// Permission denied (`UV_EACCES`).
  public static let accessDenied = UVError(UV_EACCES)
  /// The peer reset the connection (`UV_ECONNRESET`).
  public static let connectionReset = UVError(UV_ECONNRESET)
  /// The peer is gone while writing (`UV_EPIPE`).
  public static let brokenPipe = UVError(UV_EPIPE)
}

/// Turns a libuv return value into a typed throw: negative values throw, others pass through.
@inline(__always)
@discardableResult
func uvCheck(_ rc: Int32) throws(UVError) -> Int32 {
  if rc < 0 { throw UVError(rc) }
  return rc
}
