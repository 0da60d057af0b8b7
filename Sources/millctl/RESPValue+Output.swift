import MillraceClient

extension RESPValue {
  /// The reply as millctl's one-shot commands print it, for people and for scripts alike:
  /// strings bare, arrays one element per line (nothing for an empty array), `STATS`-style
  /// `\r\n` line ends as plain newlines.
  var plainText: String {
    switch self {
    case .simple(let text): return text
    case .error(let text): return text
    case .integer(let value): return String(value)
    case .bulk(let text):
      return (text ?? "").replacingOccurrences(of: "\r\n", with: "\n").trimmingTrailingNewlines
    case .array(let values): return (values ?? []).map(\.plainText).joined(separator: "\n")
    }
  }

  /// The reply as the `repl` prints it: like redis-cli (`description`), except that bulk
  /// text (such as `STATS`) is shown with plain line ends.
  var replText: String {
    guard case .bulk(_?) = self else { return description }
    return plainText
  }

  /// Returns the reply, or throws `MillctlFailure` with the error text (without the `ERR `
  /// prefix, so it starts with the code: `rejected open in opened`) when it is an error.
  @discardableResult
  func checked() throws(MillctlFailure) -> RESPValue {
    guard case .error(let text) = self else { return self }
    throw MillctlFailure(text.hasPrefix("ERR ") ? String(text.dropFirst(4)) : text)
  }
}

extension String {
  /// The text without the newlines it ends with.
  fileprivate var trimmingTrailingNewlines: String {
    var text = Substring(self)
    while text.last == "\n" { text = text.dropLast() }
    return String(text)
  }
}
