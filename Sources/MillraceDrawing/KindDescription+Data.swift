extension KindDescription {
  /// A value type of the machine-file language as written: `int`, `bool`, `string` (with
  /// its `max` bytes when given), or a name the drawing only repeats.
  public struct DataType: Hashable, Sendable, CustomStringConvertible {
    /// `int`, `bool`, `string`, ...
    public var name: String
    /// `"max"`, for a string, when given.
    public var max: String?

    /// A type made in code.
    public init(_ name: String, max: String? = nil) {
      self.name = name
      self.max = max
    }

    /// `int`, `string(16)`.
    public var description: String { max.map { "\(name)(\($0))" } ?? name }

    /// The value a variable of this type starts with when none is given, as the language
    /// writes it (`0`, `false`, `''`); nil for a type it does not know.
    var defaultValue: String? {
      switch name {
      case "int": "0"
      case "bool": "false"
      case "string": "''"
      default: nil
      }
    }
  }

  /// A context variable: typed, with its initial value.
  public struct Variable: Hashable, Sendable, CustomStringConvertible {
    /// The variable's name.
    public var name: String
    /// Its type, when given.
    public var type: DataType?
    /// Its initial value as the expression language writes it (`0`, `true`, `'abc'`), when
    /// given.
    public var initial: String?

    /// A variable made in code.
    public init(_ name: String, type: DataType?, initial: String? = nil) {
      self.name = name
      self.type = type
      self.initial = initial
    }

    /// `attempts: int = 0`: the initial value, or the type's default when none is given.
    public var description: String {
      let value = initial ?? type?.defaultValue
      return name + (type.map { ": \($0)" } ?? "") + (value.map { " = \($0)" } ?? "")
    }
  }

  /// An input and its parameters.
  public struct Input: Hashable, Sendable, CustomStringConvertible {
    /// The input's name.
    public var name: String
    /// Its parameters, in the order `SEND name input arg...` takes them.
    public var parameters: [Parameter]

    /// An input made in code.
    public init(_ name: String, parameters: [Parameter] = []) {
      self.name = name
      self.parameters = parameters
    }

    /// `login(name: string(16), pin: int)`, or the bare name without parameters.
    public var description: String {
      KindDescription.applied(name, to: parameters.map(\.description))
    }
  }

  /// A parameter of an input.
  public struct Parameter: Hashable, Sendable, CustomStringConvertible {
    /// The parameter's name.
    public var name: String
    /// Its type, when given.
    public var type: DataType?

    /// A parameter made in code.
    public init(_ name: String, type: DataType?) {
      self.name = name
      self.type = type
    }

    /// `pin: int`.
    public var description: String { name + (type.map { ": \($0)" } ?? "") }
  }
}
