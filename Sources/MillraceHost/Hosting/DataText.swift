/// The text forms of a data kind's values where they travel inside one word of text: an input
/// or output with values as `name(v1,v2)` (timers in the store, pub/sub messages), a state
/// with its context as `leaf{a=1,b=true,s="x"}` (the store).
///
/// An int prints in decimal, a bool as `true` / `false`, a string in double quotes with `"`
/// and `\` escaped by a backslash and every byte below 0x21 (space included) and 0x7F as
/// `\u00XX`: the form holds no space, so a message stays a list of words.
enum DataText {
  /// `name(v1,v2)`, the values read from `words` at the slots' offsets; just `name` when
  /// there are no slots.
  static func format(
    _ name: String, _ slots: [KindDefinition.DataModel.Slot], _ words: UnsafePointer<UInt64>
  ) -> String {
    guard !slots.isEmpty else { return name }
    return name + "(" + slots.map { quoted($0.type, words + $0.offset) }.joined(separator: ",")
      + ")"
  }

  /// `leaf{a=1,b=true}`, the variables read from `words`; just `leaf` without variables.
  static func format(
    state leaf: String, _ variables: [KindDefinition.DataModel.Slot],
    _ words: UnsafePointer<UInt64>
  ) -> String {
    guard !variables.isEmpty else { return leaf }
    let fields = variables.map { "\($0.name)=" + quoted($0.type, words + $0.offset) }
    return leaf + "{" + fields.joined(separator: ",") + "}"
  }

  /// The value at `words` in the text form above.
  static func quoted(_ type: ValueType, _ words: UnsafePointer<UInt64>) -> String {
    guard case .string = type else { return type.format(words) }
    var text = "\""
    for byte in type.format(words).utf8 {
      switch byte {
      case UInt8(ascii: "\""): text += "\\\""
      case UInt8(ascii: "\\"): text += "\\\\"
      case 0...0x20, 0x7F:
        let hex = String(byte, radix: 16, uppercase: true)
        text += "\\u00" + (hex.count == 1 ? "0" : "") + hex
      default: text.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return text + "\""
  }

  /// A name and its bracketed fields, as read from `name(a,b)` or `leaf{x=1}`.
  struct Parsed {
    var name: String
    /// The raw fields (a value, or `key=value`), or nil when there are no brackets.
    var fields: [String]?
  }

  /// Splits `text` into its name and the fields between `open` and the matching close at
  /// the end; nil when it is malformed.
  static func split(_ text: String, open: Character) -> Parsed? {
    guard let start = text.firstIndex(of: open) else { return Parsed(name: text, fields: nil) }
    let close: Character = open == "(" ? ")" : "}"
    guard text.last == close else { return nil }
    let inner = text[text.index(after: start)..<text.index(before: text.endIndex)]
    var fields: [String] = []
    var current = ""
    var inString = false
    var escaped = false
    for character in inner {
      if inString {
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          inString = false
        }
        current.append(character)
      } else if character == "," {
        fields.append(current)
        current = ""
      } else {
        if character == "\"" { inString = true }
        current.append(character)
      }
    }
    guard !inString else { return nil }
    if !inner.isEmpty { fields.append(current) }
    return Parsed(name: String(text[..<start]), fields: fields)
  }

  /// Reads `text`, one value in the form above (a string quoted), into `destination`
  /// (`type.words` words); false when it is not a value of `type`.
  static func read(
    _ text: String, as type: ValueType, into destination: UnsafeMutablePointer<UInt64>
  ) -> Bool {
    var plain = text
    if case .string = type {
      guard let unquoted = unquote(text) else { return false }
      plain = unquoted
    }
    return plain.withUTF8Bytes { bytes in
      (try? type.parse(bytes, into: destination)) != nil
    }
  }

  /// The string a quoted value holds; nil when it is not quoted as `quoted` quotes.
  private static func unquote(_ text: String) -> String? {
    var bytes = Array(text.utf8)
    guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"")
    else { return nil }
    bytes = Array(bytes[1..<(bytes.count - 1)])
    var result: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      guard byte == UInt8(ascii: "\\") else {
        guard byte != UInt8(ascii: "\"") else { return nil }
        result.append(byte)
        continue
      }
      guard index < bytes.count else { return nil }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): result.append(escape)
      case UInt8(ascii: "u"):
        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "0"),
          bytes[index + 1] == UInt8(ascii: "0"),
          let value = UInt8(
            String(decoding: bytes[(index + 2)..<(index + 4)], as: UTF8.self), radix: 16)
        else { return nil }
        result.append(value)
        index += 4
      default: return nil
      }
    }
    return String(validating: result, as: UTF8.self)
  }
}
