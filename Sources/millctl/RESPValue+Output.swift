import MillraceClient

extension RESPValue {
  /// The reply as millctl's one-shot commands print it, for people and for scripts alike:
  /// strings bare, arrays one element per line (nothing for an empty array), `STATS`-style
  /// `\r\n` line ends as plain newlines. A RESP3 value prints as its RESP2 form would (a map
  /// as its keys and values, a boolean as 1 or 0, a null as nothing).
  var plainText: String {
    switch self {
    case .simple(let text), .error(let text), .bigNumber(let text): return text
    case .integer(let value): return String(value)
    case .double(let value): return String(value)
    case .boolean(let value): return value ? "1" : "0"
    case .null, .bulk(nil): return ""
    case .bulk(let text?), .verbatim(_, let text):
      return String(text.map { $0 == "\r\n" ? "\n" : $0 }).trimmingTrailingNewlines
    case .array(let values): return Self.lines(values ?? [])
    case .set(let values), .push(let values): return Self.lines(values)
    case .map(let pairs): return Self.lines(pairs.flatMap { [$0.key, $0.value] })
    }
  }

  private static func lines(_ values: [RESPValue]) -> String {
    values.map(\.plainText).joined(separator: "\n")
  }

  /// The reply as the `repl` prints it: like redis-cli (`description`), except that bulk
  /// text (such as `STATS`) is shown with plain line ends.
  var replText: String {
    guard case .bulk(_?) = self else { return description }
    return plainText
  }

  /// Returns the reply, or throws `MillctlFailure` with the error line when it is an error: it
  /// starts with the code (`REJECTED open in opened`), but for the generic `ERR`, left out
  /// (`wrong number of arguments for 'send' command`).
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
