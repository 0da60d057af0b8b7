/// The one rule for names of kinds, machines, states, inputs, outputs, queues and effect ids
/// (DESIGN §4.1): 1 to 128 characters, each one of `A-Z a-z 0-9 _ . : -`. A machine name may
/// also hold `{` and `}`, so that a Redis Cluster hash tag (`pump:{A}`, `pump:{A}:b`) puts
/// related machines in one slot (docs/cluster.md).
///
/// The rule is byte-based, so `isValid` never allocates; `"*"` is not a name, which is why
/// machine files can use it as the wildcard.
public enum NameRule {
  /// The longest valid name, in characters (all valid characters are ASCII).
  public static let maxLength = 128

  /// The rule in words, for error messages.
  public static let summary = "1 to 128 characters from A-Z a-z 0-9 _ . : -"

  /// The rule for machine names in words.
  public static let machineSummary = "1 to 128 characters from A-Z a-z 0-9 _ . : - { }"

  /// True when `name` follows the rule.
  public static func isValid(_ name: some StringProtocol) -> Bool {
    isValid(utf8: name.utf8)
  }

  /// True when the UTF-8 bytes `name` follow the rule.
  public static func isValid(utf8 name: some Collection<UInt8>) -> Bool {
    guard !name.isEmpty, name.count <= maxLength else { return false }
    if let valid = name.withContiguousStorageIfAvailable({ $0.allSatisfy(isNameByte) }) {
      return valid
    }
    return name.allSatisfy(isNameByte)
  }

  /// True when the UTF-8 bytes `name` follow the rule for machine names.
  public static func isValidMachineName(utf8 name: some Collection<UInt8>) -> Bool {
    guard !name.isEmpty, name.count <= maxLength else { return false }
    func allowed(_ byte: UInt8) -> Bool {
      isNameByte(byte) || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}")
    }
    if let valid = name.withContiguousStorageIfAvailable({ $0.allSatisfy(allowed) }) {
      return valid
    }
    return name.allSatisfy(allowed)
  }

  /// True for the bytes a name may contain.
  static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."),
      UInt8(ascii: ":"), UInt8(ascii: "-"):
      return true
    default:
      return false
    }
  }
}
