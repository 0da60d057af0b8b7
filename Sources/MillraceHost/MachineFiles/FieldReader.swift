/// Reads the members of one JSON object of a machine file: refuses keys it does not know,
/// reports missing and mistyped members with their paths, and checks names and durations.
///
/// Every read returns `nil` after reporting a problem (see `DecodingProblems`), so the caller
/// fills a placeholder and goes on; when the value is not an object at all, that is reported
/// once and every read returns `nil` silently.
struct FieldReader {
  private let decoder: any Decoder
  private let container: KeyedDecodingContainer<AnyCodingKey>?

  /// Opens the object `decoder` is at and reports each member not in `known`.
  init(_ decoder: any Decoder, known: [String]) throws {
    self.decoder = decoder
    container = try decoder.attempt { try decoder.container(keyedBy: AnyCodingKey.self) }
    guard let container else { return }
    let expected = known.sorted().map(\.quoted).joined(separator: ", ")
    for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) {
      try report("unknown key; expected one of \(expected)", at: key)
    }
  }

  /// True when the value is an object (if not, that was reported when the reader was made).
  var isObject: Bool { container != nil }

  /// True when the object has a member `key` (even `null`).
  func contains(_ key: String) -> Bool {
    container?.contains(AnyCodingKey(stringValue: key)) ?? false
  }

  /// True when member `key` is a string; checks without reporting anything.
  func isString(_ key: String) -> Bool {
    (try? container?.decode(String.self, forKey: AnyCodingKey(stringValue: key))) != nil
  }

  /// True when member `key` is a list; checks without reporting anything.
  func isList(_ key: String) -> Bool {
    (try? container?.nestedUnkeyedContainer(forKey: AnyCodingKey(stringValue: key))) != nil
  }

  /// Reports `message` about member `key`.
  func report(_ message: String, at key: String) throws {
    try decoder.report(message, at: decoder.codingPath + [AnyCodingKey(stringValue: key)])
  }

  /// Member `key` decoded as `T`; a missing `required` member is reported, a missing optional
  /// one (or `null`) is `nil`. Errors that are not `DecodingError`s (Foundation throws its own
  /// for numbers like `1e400`) are reported at the member too.
  func value<T: Decodable>(_ key: String, required: Bool = false, as type: T.Type = T.self)
    throws -> T?
  {
    guard let container else { return nil }
    let codingKey = AnyCodingKey(stringValue: key)
    return try decoder.attempt {
      do {
        return required
          ? try container.decode(T.self, forKey: codingKey)
          : try container.decodeIfPresent(T.self, forKey: codingKey)
      } catch let error as DecodingError {
        throw error
      } catch {
        let context = DecodingError.Context(
          codingPath: decoder.codingPath + [codingKey],
          debugDescription: T.self is any Numeric.Type
            ? "number out of range" : "cannot read this value")
        throw DecodingError.dataCorrupted(context)
      }
    } ?? nil
  }

  /// Member `key` as a name (see `NameRule`), or `"*"` when `wildcard` allows it; `noun` says
  /// what it names in the message.
  func name(_ key: String, _ noun: String, required: Bool = false, wildcard: Bool = false)
    throws -> String?
  {
    guard let name = try value(key, required: required, as: String.self) else { return nil }
    guard NameRule.isValid(name) || (wildcard && name == "*") else {
      try report(Self.invalidName(name, noun), at: key)
      return nil
    }
    return name
  }

  /// Member `key` as a list of names, each checked and none repeated; `nil` when absent or
  /// when any element is wrong.
  func names(_ key: String, _ noun: String) throws -> [String]? {
    guard let items = try value(key, as: [Collected<String>].self) else { return nil }
    var names: [String] = []
    for (index, item) in items.enumerated() {
      guard let name = item.value else { continue }
      let problem =
        if name == "*" {
          "\"*\" stands alone, not in a list"
        } else if !NameRule.isValid(name) {
          Self.invalidName(name, noun)
        } else if names.contains(name) {
          "duplicate \(noun) \(name.quoted)"
        } else {
          String?.none
        }
      if let problem {
        let element = [AnyCodingKey(stringValue: key), AnyCodingKey(intValue: index)]
        try decoder.report(problem, at: decoder.codingPath + element)
      } else {
        names.append(name)
      }
    }
    return names.count == items.count ? names : nil
  }

  /// Member `key` as an object whose keys are names (checked, `noun` in messages) and whose
  /// values are `T`; members that fail are reported and left out.
  func members<T: Decodable>(_ key: String, _ noun: String, as type: T.Type) throws
    -> [String: T]?
  {
    guard let container, contains(key) else { return nil }
    let codingKey = AnyCodingKey(stringValue: key)
    let object = try decoder.attempt {
      try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: codingKey)
    }
    guard let object else { return nil }
    var members: [String: T] = [:]
    for member in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
      let name = member.stringValue
      guard NameRule.isValid(name) else {
        let message = Self.invalidName(name, noun)
        try decoder.report(message, at: decoder.codingPath + [codingKey, member])
        continue
      }
      members[name] = try decoder.attempt { try object.decode(T.self, forKey: member) }
    }
    return members
  }

  /// Member `key` as a duration in nanoseconds (see `DurationText`).
  func duration(_ key: String) throws -> Int64? {
    guard let text = try value(key, as: String.self) else { return nil }
    switch DurationText.nanoseconds(text) {
    case .success(let nanoseconds): return nanoseconds
    case .failure(let error):
      try report(error.message, at: key)
      return nil
    }
  }

  /// Member `key` as a whole number in `range`.
  func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let number = try value(key, as: Double.self) else { return nil }
    guard number.rounded() == number, Double(range.lowerBound) <= number,
      number <= Double(range.upperBound)
    else {
      try report(
        "must be a whole number from \(range.lowerBound) to \(range.upperBound)", at: key)
      return nil
    }
    return Int(number)
  }

  /// Member `key` as a 64-bit integer: a fraction or a number outside the range is reported
  /// as such.
  func wholeNumber(_ key: String) throws -> Int64? {
    let codingKey = AnyCodingKey(stringValue: key)
    if let value = try? container?.decode(Int64.self, forKey: codingKey) { return value }
    if let number = try? container?.decode(Double.self, forKey: codingKey) {
      let problem =
        number.rounded() == number ? "outside the 64-bit integers" : "must be a whole number"
      try report(problem, at: key)
      return nil
    }
    return try value(key, as: Int64.self)
  }

  /// Member `key` as one of `choices` (compared exactly); `noun` names it in the message.
  func choice<T>(
    _ key: String, _ noun: String, required: Bool = false, _ choices: KeyValuePairs<String, T>
  ) throws -> T? {
    guard let word = try value(key, required: required, as: String.self) else { return nil }
    guard let match = choices.first(where: { $0.key == word }) else {
      let expected = choices.map(\.key.quoted).joined(separator: ", ")
      try report("unknown \(noun) \(word.quoted); expected one of \(expected)", at: key)
      return nil
    }
    return match.value
  }

  /// The message for a string that is not a valid name.
  private static func invalidName(_ name: String, _ noun: String) -> String {
    "invalid \(noun) name \(name.quoted) (\(NameRule.summary))"
  }
}
