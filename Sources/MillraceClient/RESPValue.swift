/// A RESP2 reply as a client reads it.
public indirect enum RESPValue: Hashable, Sendable, CustomStringConvertible {
  /// `+text`
  case simple(String)
  /// `-text` (for the daemon, `ERR <code> <text>`)
  case error(String)
  /// `:n`
  case integer(Int)
  /// `$n` bytes, as text (nil for the null bulk string)
  case bulk(String?)
  /// `*n` values (nil for the null array)
  case array([RESPValue]?)

  /// How `redis-cli` would print it, roughly: one line per scalar, arrays numbered.
  public var description: String {
    switch self {
    case .simple(let text): return text
    case .error(let text): return "(error) \(text)"
    case .integer(let value): return "(integer) \(value)"
    case .bulk(let text): return text ?? "(nil)"
    case .array(let values):
      guard let values else { return "(nil)" }
      if values.isEmpty { return "(empty array)" }
      return values.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(
        separator: "\n")
    }
  }

  /// The code of an error reply, its first word (`REJECTED` for `-REJECTED inc in 0`, `ERR`
  /// for Redis's generic errors).
  public var errorCode: String? {
    guard case .error(let text) = self else { return nil }
    return text.split(separator: " ", maxSplits: 1).first.map(String.init)
  }

  /// The strings of an array of bulk or simple strings.
  public var strings: [String]? {
    guard case .array(let values?) = self else { return nil }
    return values.compactMap { value in
      switch value {
      case .bulk(let text): return text
      case .simple(let text): return text
      default: return nil
      }
    }
  }
}
