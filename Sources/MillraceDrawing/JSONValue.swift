/// A JSON value as `JSONParser` read it: objects keep their members in the order written
/// (repeated keys included), numbers keep their text, so nothing is rounded or reordered.
public enum JSONValue: Hashable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, exactly as written (`-1`, `2.50`, `1e3`); valid by RFC 8259's grammar.
  case number(String)
  /// A string, escapes decoded.
  case string(String)
  /// An array, in order.
  case array([JSONValue])
  /// An object's members, in the order written.
  case object([JSONMember])

  /// The value of the first member named `key`, when this is an object that has one.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// The text, when this is a string.
  public var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The elements, when this is an array.
  public var array: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// The members, when this is an object.
  public var members: [JSONMember]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// A scalar as an expression of the machine-file language writes it: a string as is, a
  /// number as written, a boolean as `true` or `false`; nil for null, arrays and objects.
  var expressionText: String? {
    switch self {
    case .string(let text), .number(let text): return text
    case .bool(let value): return value ? "true" : "false"
    case .null, .array, .object: return nil
    }
  }
}

/// One member of a JSON object.
public struct JSONMember: Hashable, Sendable {
  /// The key, escapes decoded.
  public var key: String
  /// The value.
  public var value: JSONValue

  /// A member `key: value`.
  public init(key: String, value: JSONValue) {
    self.key = key
    self.value = value
  }
}
