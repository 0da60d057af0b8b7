/// A strict RFC 8259 syntax pass over a machine file, run before `JSONDecoder`, for the two
/// things the decoder cannot say: where a syntax error is (line and column, counted in
/// characters from 1) and which object keys are repeated (the decoder silently keeps one).
///
/// It parses without building values; nesting deeper than `maxDepth` is refused so that a
/// hostile file cannot exhaust the stack.
struct JSONSyntaxCheck {
  /// A syntax error and where it is.
  struct Failure: Error, Hashable {
    /// 1-based line.
    var line: Int
    /// 1-based column, in characters.
    var column: Int
    /// What was expected or found.
    var message: String
  }

  /// The deepest nesting of objects and arrays accepted.
  static let maxDepth = 128

  private let bytes: [UInt8]
  private var offset = 0
  /// Paths of object members whose key already appeared in the same object.
  private(set) var duplicateKeys: [JSONPath] = []

  /// Checks `bytes` (already known to be UTF-8): the first syntax error, if any, and every
  /// repeated key found before it.
  static func check(_ bytes: [UInt8]) -> (failure: Failure?, duplicateKeys: [JSONPath]) {
    var checker = JSONSyntaxCheck(bytes: bytes)
    do throws(Stop) {
      try checker.value(at: .root, depth: 0)
      checker.skipSpace()
      if checker.offset < bytes.count {
        throw checker.stop("unexpected \(checker.describeNext()) after the JSON value")
      }
      return (nil, checker.duplicateKeys)
    } catch {
      return (checker.failure(error), checker.duplicateKeys)
    }
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Unwinds the parse at `offset` with a message.
  private struct Stop: Error {
    var offset: Int
    var message: String
  }

  private func stop(_ message: String) -> Stop {
    Stop(offset: offset, message: message)
  }

  private func failure(_ stop: Stop) -> Failure {
    let before = bytes[..<stop.offset]
    let lineStart = (before.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
    let line = before.count { $0 == UInt8(ascii: "\n") } + 1
    let column = bytes[lineStart..<stop.offset].count { $0 & 0xC0 != 0x80 } + 1
    return Failure(line: line, column: column, message: stop.message)
  }

  private var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

  private func describeNext() -> String {
    guard let byte = next else { return "end of file" }
    if (0x21...0x7E).contains(byte) { return "character \(String(UnicodeScalar(byte)).quoted)" }
    return "character (byte 0x\(String(byte, radix: 16, uppercase: true)))"
  }

  private mutating func skipSpace() {
    while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
      offset += 1
    }
  }

  private mutating func expect(_ byte: UInt8, _ what: String) throws(Stop) {
    guard next == byte else { throw stop("expected \(what), found \(describeNext())") }
    offset += 1
  }

  private mutating func value(at path: JSONPath, depth: Int) throws(Stop) {
    skipSpace()
    switch next ?? 0 {
    case UInt8(ascii: "{"): try container(at: path, depth: depth, close: UInt8(ascii: "}"))
    case UInt8(ascii: "["): try container(at: path, depth: depth, close: UInt8(ascii: "]"))
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    default: throw stop("expected a value, found \(describeNext())")
    }
  }

  /// An object (when `close` is `}`) or an array: members, separators, repeated keys.
  private mutating func container(at path: JSONPath, depth: Int, close: UInt8) throws(Stop) {
    guard depth < Self.maxDepth else { throw stop("nested more than \(Self.maxDepth) deep") }
    let isObject = close == UInt8(ascii: "}")
    let closing = String(UnicodeScalar(close)).quoted
    offset += 1
    skipSpace()
    if next == close {
      offset += 1
      return
    }
    var keys = Set<String>()
    for index in 0... {
      skipSpace()
      if index > 0, next == close { throw stop("trailing comma before \(closing)") }
      var member = path.index(index)
      if isObject {
        guard next == UInt8(ascii: "\"") else {
          throw stop("expected a string key, found \(describeNext())")
        }
        let key = try string()
        member = path.key(key)
        if !keys.insert(key).inserted { duplicateKeys.append(member) }
        skipSpace()
        try expect(UInt8(ascii: ":"), "\":\" after the key")
      }
      try value(at: member, depth: depth + 1)
      skipSpace()
      if next == close {
        offset += 1
        return
      }
      try expect(UInt8(ascii: ","), "\",\" or \(closing)")
    }
  }

  /// Reads a string literal and returns its value (escapes decoded).
  private mutating func string() throws(Stop) -> String {
    offset += 1
    var value: [UInt8] = []
    while true {
      guard let byte = next else { throw stop("unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        offset += 1
        return String(decoding: value, as: UTF8.self)
      case UInt8(ascii: "\\"):
        offset += 1
        try escape(into: &value)
      case 0..<0x20:
        throw stop("control character in a string (write it as an escape, like \\n)")
      default:
        value.append(byte)
        offset += 1
      }
    }
  }

  private mutating func escape(into value: inout [UInt8]) throws(Stop) {
    let simple: [UInt8: UInt8] = [
      UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
      UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
      UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
    ]
    if let byte = next, let decoded = simple[byte] {
      value.append(decoded)
      offset += 1
      return
    }
    guard next == UInt8(ascii: "u") else { throw stop("invalid escape in a string") }
    offset += 1
    var scalar = try hex4()
    if (0xD800..<0xDC00).contains(scalar), next == UInt8(ascii: "\\"),
      offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u")
    {
      offset += 2
      let low = try hex4()
      guard (0xDC00..<0xE000).contains(low) else { throw stop("invalid surrogate pair") }
      scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
    }
    guard let unicode = Unicode.Scalar(scalar) else { throw stop("unpaired surrogate escape") }
    value.append(contentsOf: Array(String(Character(unicode)).utf8))
  }

  private mutating func hex4() throws(Stop) -> UInt32 {
    var scalar: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = next, let digit = UInt32(String(UnicodeScalar(byte)), radix: 16) else {
        throw stop("expected four hex digits after \\u")
      }
      scalar = scalar << 4 | digit
      offset += 1
    }
    return scalar
  }

  private mutating func number() throws(Stop) {
    let start = offset
    if next == UInt8(ascii: "-") { offset += 1 }
    let integerDigits = digits()
    let leadingZero = integerDigits > 1 && bytes[offset - integerDigits] == UInt8(ascii: "0")
    var valid = integerDigits > 0 && !leadingZero
    if next == UInt8(ascii: ".") {
      offset += 1
      valid = valid && digits() > 0
    }
    if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
      offset += 1
      if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
      valid = valid && digits() > 0
    }
    if !valid {
      offset = start
      throw stop("invalid number")
    }
  }

  private mutating func digits() -> Int {
    let start = offset
    while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
    return offset - start
  }

  private mutating func literal(_ word: String) throws(Stop) {
    guard bytes[offset...].starts(with: word.utf8) else {
      throw stop("expected a value, found \(describeNext())")
    }
    offset += word.utf8.count
  }
}
