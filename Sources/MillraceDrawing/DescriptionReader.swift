/// A JSON value and where it is in the description, with the reads `KindDescription` makes
/// of it: each read either gives the value, nil for an absent optional field, or an error
/// that names the field.
struct DescriptionReader {
  /// The value read.
  let value: JSONValue
  /// Where it is, `transitions[2].effects[0]` (empty at the top).
  let path: String

  /// The member `key` of this object, when present.
  func member(_ key: String) -> DescriptionReader? {
    value[key].map { DescriptionReader(value: $0, path: path.isEmpty ? key : "\(path).\(key)") }
  }

  /// An error at this value.
  func error(_ message: String) -> DescriptionError {
    DescriptionError(path: path, message: message)
  }

  /// The object's members, each with its path; an error when this is not an object.
  func members() throws(DescriptionError) -> [(key: String, reader: DescriptionReader)] {
    guard let members = value.members else { throw error("expected an object") }
    return members.map { member in
      (member.key, DescriptionReader(value: member.value, path: "\(path).\(member.key)"))
    }
  }

  /// The array's elements, each with its path; an error when this is not an array.
  func elements() throws(DescriptionError) -> [DescriptionReader] {
    guard let elements = value.array else { throw error("expected a list") }
    return elements.indices.map { DescriptionReader(value: elements[$0], path: "\(path)[\($0)]") }
  }

  /// The text; an error when this is not a string.
  func string() throws(DescriptionError) -> String {
    guard let text = value.string else { throw error("expected a string") }
    return text
  }

  /// A scalar as the expression language writes it; an error for null, lists and objects.
  func expression() throws(DescriptionError) -> String {
    guard let text = value.expressionText else { throw error("expected an expression") }
    return text
  }

  /// The string `key`; an error when it is absent or not a string.
  func requiredString(_ key: String) throws(DescriptionError) -> String {
    guard let member = member(key) else { throw error("missing \"\(key)\"") }
    return try member.string()
  }

  /// The string `key`, nil when absent; an error when it is not a string.
  func optionalString(_ key: String) throws(DescriptionError) -> String? {
    try member(key)?.string()
  }

  /// The elements of the list `key`, none when absent.
  func list(_ key: String) throws(DescriptionError) -> [DescriptionReader] {
    try member(key)?.elements() ?? []
  }

  /// The strings of the list `key`, none when absent.
  func strings(_ key: String) throws(DescriptionError) -> [String] {
    var strings: [String] = []
    for element in try list(key) { strings.append(try element.string()) }
    return strings
  }

  /// A name written as a string or as an object's `name` (states, inputs).
  func nameOrObject() throws(DescriptionError) -> (name: String, object: DescriptionReader?) {
    if let name = value.string { return (name, nil) }
    guard value.members != nil else { throw error("expected a name or an object") }
    return (try requiredString("name"), self)
  }
}
