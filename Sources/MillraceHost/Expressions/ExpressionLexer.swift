/// Splits an expression's UTF-8 text into tokens, or says where it cannot.
struct ExpressionLexer {
  let bytes: [UInt8]

  init(_ text: String) {
    bytes = Array(text.utf8)
  }

  /// The 1-based column of byte `offset`, counting Unicode scalars.
  func column(_ offset: Int) -> Int {
    bytes[..<min(offset, bytes.count)].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
  }

  /// Every token of the text, ending with `.end`.
  func tokens() throws(ExpressionError) -> [ExpressionToken] {
    var tokens: [ExpressionToken] = []
    var index = 0
    while true {
      while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
      guard index < bytes.count else {
        tokens.append(ExpressionToken(kind: .end, offset: index, text: ""))
        return tokens
      }
      let token = try token(at: index)
      tokens.append(token)
      index += token.text.utf8.count
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  private func text(_ range: Range<Int>) -> String {
    String(decoding: bytes[range], as: UTF8.self)
  }

  private func token(at start: Int) throws(ExpressionError) -> ExpressionToken {
    let byte = bytes[start]
    if ExpressionIdentifier.isStart(byte) {
      var end = start + 1
      while end < bytes.count, ExpressionIdentifier.isContinuation(bytes[end]) { end += 1 }
      return ExpressionToken(kind: .word(text(start..<end)), offset: start, text: text(start..<end))
    }
    if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { return try integer(at: start) }
    if byte == UInt8(ascii: "'") { return try string(at: start) }
    let next = start + 1 < bytes.count ? bytes[start + 1] : 0
    let symbol: String
    switch (byte, next) {
    case (UInt8(ascii: "="), UInt8(ascii: "=")), (UInt8(ascii: "!"), UInt8(ascii: "=")),
      (UInt8(ascii: "<"), UInt8(ascii: "=")), (UInt8(ascii: ">"), UInt8(ascii: "=")):
      symbol = text(start..<start + 2)
    case (UInt8(ascii: "<"), _), (UInt8(ascii: ">"), _), (UInt8(ascii: "+"), _),
      (UInt8(ascii: "-"), _), (UInt8(ascii: "*"), _), (UInt8(ascii: "/"), _),
      (UInt8(ascii: "%"), _), (UInt8(ascii: "("), _), (UInt8(ascii: ")"), _):
      symbol = text(start..<start + 1)
    default:
      throw unexpected(at: start)
    }
    return ExpressionToken(kind: .symbol(symbol), offset: start, text: symbol)
  }

  private func unexpected(at start: Int) -> ExpressionError {
    var end = start + 1
    while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
    let hint =
      switch bytes[start] {
      case UInt8(ascii: "="): "; compare with \"==\""
      case UInt8(ascii: "!"): "; negate with \"not\""
      case UInt8(ascii: "&"): "; write \"and\""
      case UInt8(ascii: "|"): "; write \"or\""
      case UInt8(ascii: "\""): "; strings are written in single quotes"
      default: ""
      }
    return ExpressionError(
      "unexpected character \"\(text(start..<end))\"\(hint)", column: column(start))
  }

  private func integer(at start: Int) throws(ExpressionError) -> ExpressionToken {
    var end = start
    var value: UInt64 = 0
    var overflow = false
    while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
      let (scaled, scaleOverflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, sumOverflow) = scaled.addingReportingOverflow(UInt64(bytes[end] - 48))
      overflow = overflow || scaleOverflow || sumOverflow
      value = sum
      end += 1
    }
    if end < bytes.count, ExpressionIdentifier.isContinuation(bytes[end]) {
      while end < bytes.count, ExpressionIdentifier.isContinuation(bytes[end]) { end += 1 }
      throw ExpressionError("invalid number \"\(text(start..<end))\"", column: column(start))
    }
    guard !overflow, value <= UInt64(Int64.max) + 1 else {
      throw ExpressionError("integer literal out of the 64-bit range", column: column(start))
    }
    return ExpressionToken(kind: .integer(value), offset: start, text: text(start..<end))
  }

  private func string(at start: Int) throws(ExpressionError) -> ExpressionToken {
    var value: [UInt8] = []
    var index = start + 1
    while true {
      guard index < bytes.count else {
        throw ExpressionError("unterminated string", column: column(start))
      }
      let byte = bytes[index]
      if byte == UInt8(ascii: "'") { break }
      if byte == UInt8(ascii: "\\") {
        let escaped = index + 1 < bytes.count ? bytes[index + 1] : 0
        guard escaped == UInt8(ascii: "'") || escaped == UInt8(ascii: "\\") else {
          var end = min(index + 2, bytes.count)
          while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
          throw ExpressionError(
            "unknown escape \"\(text(index..<end))\" (only \\' and \\\\)", column: column(index))
        }
        value.append(escaped)
        index += 2
      } else {
        value.append(byte)
        index += 1
      }
      guard value.count <= ValueType.stringMaxBytes else {
        throw ExpressionError(
          "string literal longer than \(ValueType.stringMaxBytes) bytes", column: column(start))
      }
    }
    return ExpressionToken(kind: .string(value), offset: start, text: text(start..<index + 1))
  }
}
