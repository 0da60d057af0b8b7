extension ControlClient {
  /// The protocol's rule for the names of kinds, machines, states and inputs (DESIGN §4.1), in
  /// words.
  public static let nameRule = "1 to 128 characters from A-Z a-z 0-9 _ . : -"

  /// The rule for machine names: `nameRule`, and `{` `}` for Redis Cluster hash tags.
  public static let machineNameRule = "1 to 128 characters from A-Z a-z 0-9 _ . : - { }"

  /// Whether `name` follows `machineNameRule`.
  public static func isValidMachineName(_ name: some StringProtocol) -> Bool {
    // A brace stands where any name character could.
    isValidName(String(name.map { $0 == "{" || $0 == "}" ? "x" : $0 }))
  }

  /// Whether `name` follows `nameRule`. The daemon checks the names it is sent; a client checks
  /// to explain a mistake the daemon cannot see, such as a `PSUBSCRIBE` pattern that no machine
  /// name can match.
  public static func isValidName(_ name: some StringProtocol) -> Bool {
    let bytes = name.utf8
    return (1...128).contains(bytes.count)
      && bytes.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
          || byte == UInt8(ascii: "-")
      }
  }
}
