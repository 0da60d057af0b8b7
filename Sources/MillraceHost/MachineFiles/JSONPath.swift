/// A location inside a JSON document, written the way diagnostics show it:
/// `transitions[2].effects[0].after`, `queues.request.max`, or `queues["a b"]` for keys that
/// are not identifiers.
struct JSONPath: Hashable, Sendable, CustomStringConvertible {
  /// One step into a document.
  enum Component: Hashable, Sendable {
    /// A member of an object.
    case key(String)
    /// An element of an array (0-based).
    case index(Int)
  }

  /// The steps from the document root.
  var components: [Component] = []

  /// The document itself.
  static let root = JSONPath()

  private init() {}

  /// This path extended by an object member.
  func key(_ name: String) -> JSONPath {
    var path = self
    path.components.append(.key(name))
    return path
  }

  /// This path extended by an array element.
  func index(_ index: Int) -> JSONPath {
    var path = self
    path.components.append(.index(index))
    return path
  }

  var description: String {
    var text = ""
    for component in components {
      switch component {
      case .index(let index):
        text += "[\(index)]"
      case .key(let name) where Self.isIdentifier(name):
        text += text.isEmpty ? name : ".\(name)"
      case .key(let name):
        text += "[\"\(name.replacingQuotes())\"]"
      }
    }
    return text
  }

  /// Keys written after a dot: names without `.` that do not start with a digit.
  private static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    else { return false }
    return name.utf8.allSatisfy { NameRule.isNameByte($0) && $0 != UInt8(ascii: ".") }
  }
}

extension String {
  /// The string with `\` and `"` escaped, for quoting inside messages and paths.
  func replacingQuotes() -> String {
    var escaped = ""
    for character in self {
      if character == "\"" || character == "\\" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }

  /// The string in double quotes, escaped: how names appear in messages.
  var quoted: String { "\"\(replacingQuotes())\"" }
}
