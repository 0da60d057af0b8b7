import MillraceDrawing

/// One reading of a machine file's text: the text is parsed once by `JSONParser` (strict
/// RFC 8259, the one JSON reader of the package), and the parts are read from the resulting
/// `JSONValue` tree, each problem recorded with its path so that one pass reports every bad
/// field instead of stopping at the first.
///
/// Problems come in this order: invalid UTF-8 or a JSON syntax error (alone: nothing else is
/// read), then every repeated object key in document order (the value read is the first one
/// written), then what the parts report, in the order they read their members.
final class MachineFileReader {
  /// The problems in the order they were met.
  private(set) var problems: [(path: JSONPath, message: String)] = []

  private init() {}

  /// Records a problem at `path`.
  func report(_ message: String, at path: JSONPath) {
    problems.append((path, message))
  }

  /// Reads `bytes`, the text of the file named `file` (used in diagnostics), with `read`,
  /// which is given the document's root and reports through it. Throws every problem found
  /// when there is any: the result is never partial.
  ///
  /// `JSONParser`'s depth limit holds, so a file nested more than `JSONParser.maxDepth` deep
  /// is refused as a syntax error and cannot exhaust the stack.
  static func read<T>(
    _ bytes: some Collection<UInt8>, file: String, _ read: (JSONField) -> T?
  ) throws(MachineFileErrors) -> T {
    let reader = MachineFileReader()
    if let value = reader.parse(Array(bytes)) {
      reader.findDuplicateKeys(in: value, at: .root)
      let result = JSONField(value: value, path: .root, reader: reader).read(read)
      if let result, reader.problems.isEmpty { return result }
    }
    throw MachineFileErrors(
      reader.problems.map {
        MachineFileDiagnostic(file: file, path: "\($0.path)", message: $0.message)
      })
  }

  /// The document, or nil after reporting why it is not UTF-8 JSON (with the line and column,
  /// counted in characters from 1, of a syntax error).
  private func parse(_ bytes: [UInt8]) -> JSONValue? {
    guard String(validating: bytes, as: UTF8.self) != nil else {
      report("not valid UTF-8 text", at: .root)
      return nil
    }
    do throws(JSONParseError) {
      return try JSONParser.parse(utf8: bytes)
    } catch {
      let location = "line \(error.line), column \(error.column)"
      report("invalid JSON at \(location): \(error.message)", at: .root)
      return nil
    }
  }

  /// Reports every object member of `value` (which is at `path`) and of everything inside it
  /// whose key already appeared in the same object, in the order they are written.
  private func findDuplicateKeys(in value: JSONValue, at path: JSONPath) {
    switch value {
    case .object(let members):
      var keys = Set<String>()
      for member in members {
        let memberPath = path.key(member.key)
        if !keys.insert(member.key).inserted { report("duplicate key", at: memberPath) }
        findDuplicateKeys(in: member.value, at: memberPath)
      }
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        findDuplicateKeys(in: element, at: path.index(index))
      }
    case .null, .bool, .number, .string:
      break
    }
  }
}

/// A value of the machine file being read and where it is: the reads of a single value, each
/// of which reports a value of the wrong JSON type (`expected a string`, or `expected a string,
/// found null`) at this path and gives nil.
struct JSONField {
  /// The value.
  let value: JSONValue
  /// Where it is in the document.
  let path: JSONPath
  /// The reading it belongs to, which collects the problems.
  let reader: MachineFileReader

  /// Records a problem about this value.
  func report(_ message: String) {
    reader.report(message, at: path)
  }

  /// Reports that this value is not `expected` (`"a string"`, `"an object"`...), saying so
  /// when it is `null`.
  func mismatch(_ expected: String) {
    report(value == .null ? "expected \(expected), found null" : "expected \(expected)")
  }

  /// The member `key` of this value's object (the first one, when the key is repeated).
  func member(_ key: String) -> JSONField? {
    value[key].map { JSONField(value: $0, path: path.key(key), reader: reader) }
  }

  /// The text of a string.
  func string() -> String? {
    expect("a string") { $0.string }
  }

  /// A boolean.
  func bool() -> Bool? {
    expect("true or false") { if case .bool(let flag) = $0 { flag } else { nil } }
  }

  /// The elements of a list, each with its path.
  func elements() -> [JSONField]? {
    expect("a list") { $0.array }.map { elements in
      elements.indices.map {
        JSONField(value: elements[$0], path: path.index($0), reader: reader)
      }
    }
  }

  /// A number as a `Double`; a number too large for one, or so small that it would read as
  /// zero, is reported as out of range.
  func double() -> Double? {
    guard let text = numberText() else { return nil }
    guard let number = Double(text), number.isFinite,
      number != 0 || !Self.hasNonZeroDigit(mantissaOf: text)
    else {
      report("number out of range")
      return nil
    }
    return number
  }

  /// A whole number that fits in 64 bits, written with or without a fraction or an exponent
  /// (`3`, `3.0`, `3e0`); a fraction is reported as such, and so is a whole number outside
  /// the 64-bit integers.
  func wholeNumber() -> Int64? {
    guard let text = numberText() else { return nil }
    if let integer = Int64(text) { return integer }
    guard text.utf8.contains(where: { !Self.isIntegerByte($0) }) else {
      report("outside the 64-bit integers")
      return nil
    }
    guard let number = Double(text), number.isFinite else {
      report("number out of range")
      return nil
    }
    guard number.rounded() == number else {
      report("must be a whole number")
      return nil
    }
    // 2^63 is the first Double past Int64.max; -2^63 is Int64.min itself.
    guard number >= -0x1p63, number < 0x1p63 else {
      report("outside the 64-bit integers")
      return nil
    }
    return Int64(number)
  }

  /// `read` applied to this value. When it gives nil without reporting anything, "invalid
  /// value" is reported here, so that no part of a file can be dropped silently.
  func read<T>(_ read: (JSONField) -> T?) -> T? {
    let reported = reader.problems.count
    let result = read(self)
    if result == nil, reader.problems.count == reported { report("invalid value") }
    return result
  }

  /// What `extract` finds in the value, or nil after reporting that it is not `expected`.
  private func expect<T>(_ expected: String, _ extract: (JSONValue) -> T?) -> T? {
    guard let found = extract(value) else {
      mismatch(expected)
      return nil
    }
    return found
  }

  /// A number's text as written.
  private func numberText() -> String? {
    expect("a number") { if case .number(let text) = $0 { text } else { nil } }
  }

  /// Whether `byte` may be part of a number written without a fraction or an exponent.
  private static func isIntegerByte(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
  }

  /// Whether the digits of a number before its exponent include one that is not zero.
  private static func hasNonZeroDigit(mantissaOf text: String) -> Bool {
    for byte in text.utf8 {
      if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
      if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(byte) { return true }
    }
    return false
  }
}
