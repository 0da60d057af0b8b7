/// A strict RFC 8259 reader of JSON text into `JSONValue`s, for descriptions that come from
/// elsewhere (a daemon's `DESCRIBE` reply, a file) and for the daemon's own machine files: any
/// input, however hostile or truncated, gives a value or a `JSONParseError` locating the first
/// problem, never a trap. Objects and arrays nested deeper than `maxDepth` are refused, so
/// recursion is bounded; nothing but the value and surrounding white space is accepted (no
/// comments, no trailing commas, no lone surrogates).
public struct JSONParser {
  /// The deepest nesting of objects and arrays accepted.
  public static let maxDepth = 128

  private let bytes: [UInt8]
  private var position = 0

  /// Reads `text` as one JSON value.
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(utf8: Array(text.utf8))
  }

  /// Reads `bytes`, UTF-8 text, as one JSON value. Bytes that are not UTF-8 are refused outside
  /// strings and read as U+FFFD inside them.
  public static func parse(utf8 bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    do throws(Problem) {
      let value = try parser.value(depth: 0)
      parser.skipWhiteSpace()
      guard parser.current == nil else {
        throw parser.problem("unexpected \(parser.found) after the JSON value")
      }
      return value
    } catch {
      throw parser.located(error)
    }
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// A problem at a byte offset, located in lines and columns once, when the parse stops.
  private struct Problem: Error {
    var offset: Int
    var message: String
  }

  private func problem(_ message: String) -> Problem {
    Problem(offset: position, message: message)
  }

  private func located(_ problem: Problem) -> JSONParseError {
    var line = 1
    var column = 1
    for byte in bytes[..<min(problem.offset, bytes.count)] {
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return JSONParseError(line: line, column: column, message: problem.message)
  }

  private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

  /// The byte at the cursor in words: `character "x"` (with `"` and `\` escaped), a byte in
  /// hex, or the end of the text.
  private var found: String {
    guard let byte = current else { return "end of file" }
    guard byte > 0x20, byte < 0x7F else {
      return "character (byte 0x" + String(byte, radix: 16, uppercase: true) + ")"
    }
    let escape = byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? "\\" : ""
    return "character \"" + escape + String(UnicodeScalar(byte)) + "\""
  }

  private mutating func skipWhiteSpace() {
    while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { position += 1 }
  }

  /// Moves past `byte`, or fails saying it was `wanted`.
  private mutating func consume(_ byte: UInt8, wanted: String) throws(Problem) {
    guard current == byte else { throw problem("expected \(wanted), found \(found)") }
    position += 1
  }

  /// A value that is `depth` deep (the whole text's is 0).
  private mutating func value(depth: Int) throws(Problem) -> JSONValue {
    skipWhiteSpace()
    switch current ?? 0 {
    case UInt8(ascii: "{"):
      return .object(
        try items(depth: depth, closing: UInt8(ascii: "}")) { (parser) throws(Problem) in
          try parser.member(depth: depth + 1)
        })
    case UInt8(ascii: "["):
      return .array(
        try items(depth: depth, closing: UInt8(ascii: "]")) { (parser) throws(Problem) in
          try parser.value(depth: depth + 1)
        })
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try word("true", .bool(true))
    case UInt8(ascii: "f"): return try word("false", .bool(false))
    case UInt8(ascii: "n"): return try word("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw problem("expected a value, found \(found)")
    }
  }

  private mutating func word(_ text: String, _ value: JSONValue) throws(Problem) -> JSONValue {
    guard bytes[position...].starts(with: text.utf8) else {
      throw problem("expected a value, found \(found)")
    }
    position += text.utf8.count
    return value
  }

  /// The items of an object or an array, each read by `item`, separated by commas, up to
  /// `closing`; the cursor is on the opening bracket, which is `depth` deep.
  private mutating func items<Item>(
    depth: Int, closing: UInt8, _ item: (inout JSONParser) throws(Problem) -> Item
  ) throws(Problem) -> [Item] {
    guard depth < Self.maxDepth else { throw problem("nested more than \(Self.maxDepth) deep") }
    let close = "\"" + String(UnicodeScalar(closing)) + "\""
    position += 1
    var items: [Item] = []
    while true {
      skipWhiteSpace()
      if current == closing {
        guard items.isEmpty else { throw problem("trailing comma before \(close)") }
        position += 1
        return items
      }
      items.append(try item(&self))
      skipWhiteSpace()
      if current == closing {
        position += 1
        return items
      }
      try consume(UInt8(ascii: ","), wanted: "\",\" or \(close)")
    }
  }

  /// `"key": value`; the cursor is where the key should start.
  private mutating func member(depth: Int) throws(Problem) -> JSONMember {
    guard current == UInt8(ascii: "\"") else {
      throw problem("expected a string key, found \(found)")
    }
    let key = try string()
    skipWhiteSpace()
    try consume(UInt8(ascii: ":"), wanted: "\":\" after the key")
    return JSONMember(key: key, value: try value(depth: depth))
  }

  /// A number's text, checked against the grammar `-? int frac? exp?`; a number off the
  /// grammar (`01`, `1.`, `-`) is refused at its first character.
  private mutating func number() throws(Problem) -> String {
    let start = position
    if current == UInt8(ascii: "-") { position += 1 }
    let integerDigits = digits()
    let leadingZero = integerDigits > 1 && bytes[position - integerDigits] == UInt8(ascii: "0")
    var valid = integerDigits > 0 && !leadingZero
    if current == UInt8(ascii: ".") {
      position += 1
      valid = digits() > 0 && valid
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      position += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
      valid = digits() > 0 && valid
    }
    guard valid else {
      position = start
      throw problem("invalid number")
    }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  /// Moves past decimal digits and says how many there were.
  private mutating func digits() -> Int {
    let start = position
    while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
      position += 1
    }
    return position - start
  }

  /// A string literal's value; the cursor is on its opening quote.
  private mutating func string() throws(Problem) -> String {
    position += 1
    var text: [UInt8] = []
    while true {
      guard let byte = current else { throw problem("unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return String(decoding: text, as: UTF8.self)
      case UInt8(ascii: "\\"):
        position += 1
        text.append(contentsOf: try escape())
      case 0..<0x20:
        throw problem("control character in a string (write it as an escape, like \\n)")
      default:
        text.append(byte)
        position += 1
      }
    }
  }

  /// The UTF-8 bytes an escape stands for; the cursor is past its backslash.
  private mutating func escape() throws(Problem) -> [UInt8] {
    let letter = current ?? 0
    position += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return [letter]
    case UInt8(ascii: "b"): return [0x08]
    case UInt8(ascii: "f"): return [0x0C]
    case UInt8(ascii: "n"): return [0x0A]
    case UInt8(ascii: "r"): return [0x0D]
    case UInt8(ascii: "t"): return [0x09]
    case UInt8(ascii: "u"): return Array(String(Character(try escapedScalar())).utf8)
    default:
      position -= 1
      throw problem("invalid escape in a string")
    }
  }

  /// The scalar of `\uXXXX` (the cursor past the `u`), with a second `\uXXXX` for a
  /// surrogate pair; a lone surrogate is refused.
  private mutating func escapedScalar() throws(Problem) -> Unicode.Scalar {
    var code = try hexCode()
    if (0xD800...0xDBFF).contains(code),
      bytes[position...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
    {
      position += 2
      let low = try hexCode()
      guard (0xDC00...0xDFFF).contains(low) else { throw problem("invalid surrogate pair") }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
    }
    guard let scalar = Unicode.Scalar(code) else { throw problem("unpaired surrogate escape") }
    return scalar
  }

  /// Four hexadecimal digits.
  private mutating func hexCode() throws(Problem) -> UInt32 {
    var code: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = current, let digit = Self.hexDigit(byte) else {
        throw problem("expected four hex digits after \\u")
      }
      code = code << 4 | digit
      position += 1
    }
    return code
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }
}
