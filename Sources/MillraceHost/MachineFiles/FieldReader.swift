import MillraceDrawing

/// Reads the members of one JSON object of a machine file: refuses keys it does not know,
/// reports missing and mistyped members with their paths, and checks names and durations.
///
/// Every read returns `nil` after reporting a problem (see `MachineFileReader`), so the caller
/// fills a placeholder and goes on; when the value is not an object at all, that is reported
/// once and every read returns `nil` silently. A member written `null` reads as absent, except
/// where a value is required (`expected a string, found null`). A repeated key reads as its
/// first member (the repeat itself is reported by the reader).
struct FieldReader {
  /// The object read.
  let field: JSONField
  /// Its members as written, nil when it is not an object.
  private let written: [JSONMember]?

  /// Opens the object `field` holds and reports each member not in `known`, in key order.
  init(_ field: JSONField, known: [String]) {
    self.field = field
    guard case .object(let members) = field.value else {
      field.mismatch("an object")
      written = nil
      return
    }
    written = members
    let expected = known.sorted().map(\.quoted).joined(separator: ", ")
    for key in Set(members.map(\.key)).sorted() where !known.contains(key) {
      report("unknown key; expected one of \(expected)", at: key)
    }
  }

  /// True when the value is an object (if not, that was reported when the reader was made).
  var isObject: Bool { written != nil }

  /// True when the object has a member `key` (even `null`).
  func contains(_ key: String) -> Bool {
    written?.contains { $0.key == key } ?? false
  }

  /// True when member `key` is a string; checks without reporting anything.
  func isString(_ key: String) -> Bool {
    field.value[key]?.string != nil
  }

  /// True when member `key` is a list; checks without reporting anything.
  func isList(_ key: String) -> Bool {
    field.value[key]?.array != nil
  }

  /// Reports `message` about member `key`.
  func report(_ message: String, at key: String) {
    field.reader.report(message, at: field.path.key(key))
  }

  /// Member `key` unless it is absent or `null`; a `required` one that is absent is reported
  /// as missing, and one that is `null` as not being `expected`.
  func member(_ key: String, required: Bool = false, expected: String) -> JSONField? {
    guard isObject else { return nil }
    guard let member = field.member(key) else {
      if required { report("missing (required)", at: key) }
      return nil
    }
    guard member.value != .null else {
      if required { member.mismatch(expected) }
      return nil
    }
    return member
  }

  /// Member `key` as a string.
  func string(_ key: String, required: Bool = false) -> String? {
    member(key, required: required, expected: "a string")?.string()
  }

  /// Member `key` as a boolean.
  func bool(_ key: String) -> Bool? {
    member(key, expected: "true or false")?.bool()
  }

  /// Member `key` as a whole number that fits in 64 bits (see `JSONField.wholeNumber`); here
  /// `null` is reported, not read as absent.
  func wholeNumber(_ key: String) -> Int64? {
    member(key, required: true, expected: "a number")?.wholeNumber()
  }

  /// Member `key` as a list, each element read by `read`: nil in place of an element that
  /// failed (and was reported), so that the caller sees how many there were.
  func list<T>(_ key: String, required: Bool = false, _ read: (JSONField) -> T?) -> [T?]? {
    member(key, required: required, expected: "a list")?.elements()?.map { $0.read(read) }
  }

  /// Member `key` as a list of strings; nil when any element is not one (each is reported).
  func strings(_ key: String) -> [String]? {
    guard let items = list(key, { $0.string() }) else { return nil }
    let strings = items.compactMap(\.self)
    return strings.count == items.count ? strings : nil
  }

  /// Member `key` as an object read by `read`.
  func object<T>(_ key: String, _ read: (JSONField) -> T?) -> T? {
    member(key, expected: "an object")?.read(read)
  }

  /// Member `key` as a name (see `NameRule`), or `"*"` when `wildcard` allows it; `noun` says
  /// what it names in the message.
  func name(_ key: String, _ noun: String, required: Bool = false, wildcard: Bool = false)
    -> String?
  {
    guard let name = string(key, required: required) else { return nil }
    guard NameRule.isValid(name) || (wildcard && name == "*") else {
      report(Self.invalidName(name, noun), at: key)
      return nil
    }
    return name
  }

  /// Member `key` as a list of names, each checked and none repeated; `nil` when absent or
  /// when any element is wrong. Elements that are not strings are reported first, then the
  /// names, in list order.
  func names(_ key: String, _ noun: String) -> [String]? {
    guard let items = list(key, { $0.string() }) else { return nil }
    var names: [String] = []
    for (index, item) in items.enumerated() {
      guard let name = item else { continue }
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
        field.reader.report(problem, at: field.path.key(key).index(index))
      } else {
        names.append(name)
      }
    }
    return names.count == items.count ? names : nil
  }

  /// Member `key` as an object whose keys are names (checked, `noun` in messages) and whose
  /// values are read by `read`, in key order; members that fail are reported and left out.
  /// Here `null` is reported, not read as absent.
  func members<T>(_ key: String, _ noun: String, _ read: (JSONField) -> T?) -> [String: T]? {
    guard contains(key), let object = member(key, required: true, expected: "an object") else {
      return nil
    }
    guard case .object(let written) = object.value else {
      object.mismatch("an object")
      return nil
    }
    var members: [String: T] = [:]
    for name in Set(written.map(\.key)).sorted() {
      guard NameRule.isValid(name) else {
        field.reader.report(Self.invalidName(name, noun), at: object.path.key(name))
        continue
      }
      members[name] = object.member(name)?.read(read)
    }
    return members
  }

  /// Member `key` as an object of strings, by key; nil when any value is not a string (each
  /// is reported, in file order).
  func stringMembers(_ key: String) -> [String: String]? {
    guard let object = member(key, expected: "an object") else { return nil }
    guard case .object(let written) = object.value else {
      object.mismatch("an object")
      return nil
    }
    var strings: [String: String] = [:]
    var failed = false
    for key in written.map(\.key) where strings[key] == nil {
      guard let text = object.member(key)?.string() else {
        failed = true
        continue
      }
      strings[key] = text
    }
    return failed ? nil : strings
  }

  /// Member `key` as a duration in nanoseconds (see `DurationText`).
  func duration(_ key: String) -> Int64? {
    guard let text = string(key) else { return nil }
    switch DurationText.nanoseconds(text) {
    case .success(let nanoseconds): return nanoseconds
    case .failure(let error):
      report(error.message, at: key)
      return nil
    }
  }

  /// Member `key` as a whole number in `range`.
  func integer(_ key: String, in range: ClosedRange<Int>) -> Int? {
    guard let number = member(key, expected: "a number")?.double() else { return nil }
    guard number.rounded() == number, Double(range.lowerBound) <= number,
      number <= Double(range.upperBound)
    else {
      report("must be a whole number from \(range.lowerBound) to \(range.upperBound)", at: key)
      return nil
    }
    return Int(number)
  }

  /// Member `key` as one of `choices` (compared exactly); `noun` names it in the message.
  func choice<T>(
    _ key: String, _ noun: String, required: Bool = false, _ choices: KeyValuePairs<String, T>
  ) -> T? {
    guard let word = string(key, required: required) else { return nil }
    guard let match = choices.first(where: { $0.key == word }) else {
      let expected = choices.map(\.key.quoted).joined(separator: ", ")
      report("unknown \(noun) \(word.quoted); expected one of \(expected)", at: key)
      return nil
    }
    return match.value
  }

  /// The message for a string that is not a valid name.
  private static func invalidName(_ name: String, _ noun: String) -> String {
    "invalid \(noun) name \(name.quoted) (\(NameRule.summary))"
  }
}
