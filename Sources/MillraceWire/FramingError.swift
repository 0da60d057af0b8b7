/// Why a decoder refused its input. A server answers either with an error and closes the
/// connection, as Redis does (`-ERR Protocol error: <reason>`).
public enum FramingError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  /// A frame (a line, or a whole RESP request including its headers) exceeds the maximum frame
  /// length. Reported as soon as that is certain, without waiting for the rest of the frame.
  case tooLong
  /// The bytes are not a valid frame; `reason` says what was expected.
  case `protocol`(String)

  /// `"toolong"` or `"protocol: <reason>"`.
  public var description: String {
    switch self {
    case .tooLong: "toolong"
    case .protocol(let reason): "protocol: \(reason)"
    }
  }
}
