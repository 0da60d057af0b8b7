import MillraceDrawing

extension MachineFile {
  /// A context variable as written, the value of its name in `"context"`:
  /// `{"type": "int" | "bool" | "string", "max"?: n, "initial"?: value}`.
  ///
  /// `max` (1...64 bytes, default 32) applies only to strings; `initial` must have the
  /// variable's type (a whole number, `true`/`false`, or a string of at most `max` bytes) and
  /// defaults to 0, false or the empty string.
  public struct Variable: Hashable, Sendable {
    /// The variable's type.
    public var type: ValueType
    /// The initial value in its text form (`ValueType.parse`), or nil for the type's zero.
    public var initial: String?

    /// The keys a variable object may have.
    static let keys = ["initial", "max", "type"]

    /// Creates a variable in code.
    public init(_ type: ValueType, initial: String? = nil) {
      self.type = type
      self.initial = initial
    }

    /// Reads a variable, refusing unknown keys, an unknown type, `max` on a type that is
    /// not a string and an initial value of another type (`null` included).
    init?(_ field: JSONField) {
      let reader = FieldReader(field, known: Self.keys)
      guard let type = reader.valueType() else { return nil }
      self.type = type
      guard reader.contains("initial") else { return }
      switch type {
      case .int:
        initial = reader.wholeNumber("initial").map { String($0) }
      case .bool:
        let flag = reader.member("initial", required: true, expected: "true or false")?.bool()
        initial = flag.map { $0 ? "true" : "false" }
      case .string(let max):
        initial = reader.string("initial", required: true)
        if let text = initial, text.utf8.count > max {
          reader.report("longer than \(max) bytes (the variable's \"max\")", at: "initial")
        }
      }
      if initial == nil { return nil }
    }
  }

  /// One parameter of an input as written: `{"name": p, "type": T, "max"?: n}`. A `SEND`
  /// gives the arguments in the order of the parameters.
  public struct Parameter: Hashable, Sendable {
    /// The parameter's name, as expressions of the rows for the input use it.
    public var name: String
    /// Its type.
    public var type: ValueType

    /// The keys a parameter object may have.
    static let keys = ["max", "name", "type"]

    /// Creates a parameter in code.
    public init(_ name: String, _ type: ValueType) {
      self.name = name
      self.type = type
    }

    /// Reads a parameter, refusing unknown keys, a name that cannot be used in an
    /// expression and an unknown type.
    init?(_ field: JSONField) {
      let reader = FieldReader(field, known: Self.keys)
      let name = reader.string("name", required: true)
      if let name, !ExpressionIdentifier.isIdentifier(name) {
        reader.report(Self.invalidName(name, "parameter"), at: "name")
      }
      let type = reader.valueType()
      guard let name, let type, ExpressionIdentifier.isIdentifier(name) else { return nil }
      self.init(name, type)
    }

    /// The message for a variable or parameter name that an expression could not use.
    static func invalidName(_ name: String, _ noun: String) -> String {
      ExpressionIdentifier.keywords.contains(name)
        ? "\(name.quoted) is a word of the expression language; it cannot name a \(noun)"
        : "invalid \(noun) name \(name.quoted) (letters, digits and \"_\", not starting "
          + "with a digit)"
    }
  }

  /// One entry of `"inputs"` as written: a name, or `{"name": i, "params": [...]}`.
  struct InputDeclaration {
    var name: String
    var parameters: [Parameter]

    static let keys = ["name", "params"]

    /// Reads a name or an input object, refusing unknown keys, bad names and repeated
    /// parameters.
    init?(_ field: JSONField) {
      if case .string(let name) = field.value {
        guard NameRule.isValid(name) else {
          field.report(
            name == "*"
              ? "\"*\" stands alone, not in a list"
              : "invalid input name \(name.quoted) (\(NameRule.summary))")
          return nil
        }
        (self.name, parameters) = (name, [])
        return
      }
      let reader = FieldReader(field, known: Self.keys)
      guard reader.isObject else { return nil }
      let name = reader.name("name", "input", required: true)
      let items = reader.list("params", required: true, Parameter.init)
      var parameters: [Parameter] = []
      for (position, item) in (items ?? []).enumerated() {
        guard let parameter = item else { continue }
        if parameters.contains(where: { $0.name == parameter.name }) {
          let path = field.path.key("params").index(position)
          field.reader.report("duplicate parameter \(parameter.name.quoted)", at: path)
        }
        parameters.append(parameter)
      }
      guard let name, let items, parameters.count == items.count else { return nil }
      (self.name, self.parameters) = (name, parameters)
    }
  }
}

extension FieldReader {
  /// The value type of the object: `"type"` (required) and, for strings, `"max"`.
  func valueType() -> ValueType? {
    let choices: KeyValuePairs = ["int": 0, "bool": 1, "string": 2]
    let type = choice("type", "type", required: true, choices)
    let max = integer("max", in: ValueType.stringMaxRange)
    if type != nil, type != 2, contains("max") {
      report("\"max\" applies only to \"string\"", at: "max")
      return nil
    }
    switch type {
    case 0: return .int
    case 1: return .bool
    case 2: return .string(max: max ?? ValueType.defaultStringMax)
    default: return nil
    }
  }
}
