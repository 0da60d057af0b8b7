/// The type of a context variable, an input parameter or an expression of a machine file (v2).
///
/// Every value is stored in 64-bit words: an `int` (Int64) and a `bool` (0 or 1) in one word,
/// a string of at most `max` bytes in `(1 + max + 7) / 8` words whose raw bytes are the length
/// (byte 0) and then the UTF-8 bytes; the bytes after the length are zero, so two equal strings
/// of one type have equal words.
public enum ValueType: Hashable, Sendable, CustomStringConvertible {
  /// A 64-bit signed integer.
  case int
  /// `true` or `false`, stored as 1 or 0.
  case bool
  /// A UTF-8 string of at most `max` bytes, `max` in `ValueType.stringMaxRange`.
  case string(max: Int)

  /// The sizes a string type may declare, in bytes.
  public static let stringMaxRange = 1...64

  /// The size of a string type that declares none, in bytes.
  public static let defaultStringMax = 32

  /// The longest string any value can hold, in bytes.
  public static let stringMaxBytes = 64

  /// How many 64-bit words a value of this type takes.
  public var words: Int {
    switch self {
    case .int, .bool: 1
    case .string(let max): (1 + max + 7) / 8
    }
  }

  /// The type's name without its size: `int`, `bool` or `string`.
  public var description: String {
    switch self {
    case .int: "int"
    case .bool: "bool"
    case .string: "string"
    }
  }

  /// The most bytes a string of this type holds; nil for `int` and `bool`.
  var stringMax: Int? {
    if case .string(let max) = self { max } else { nil }
  }

  /// Whether both types are strings, or both are the same non-string type.
  func isComparable(with other: ValueType) -> Bool {
    switch (self, other) {
    case (.int, .int), (.bool, .bool), (.string, .string): true
    default: false
    }
  }
}
