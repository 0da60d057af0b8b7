import MillraceClient
import Testing

/// The client's copy of the protocol's name rule (`[A-Za-z0-9_.:-]{1,128}`).
@Suite struct NameTests {
  @Test(arguments: ["a", "Door-1", "z.Z:0_9-", String(repeating: "x", count: 128)])
  func accepts(_ name: String) {
    #expect(ControlClient.isValidName(name))
  }

  @Test(arguments: [
    "", "bad name", "*", "d?", "[a]", "é", "a/b", "a@b", "a`b", "a{b", "a\u{0}",
    String(repeating: "x", count: 129),
  ])
  func refuses(_ name: String) {
    #expect(!ControlClient.isValidName(name))
  }

  /// Machine names may hold Redis Cluster hash tags.
  @Test func machineNamesTakeBraces() {
    for name in ["pump:{A}", "pump:{A}:b", "{x}", "}{", "a", String(repeating: "{", count: 128)] {
      #expect(ControlClient.isValidMachineName(name), "\(name)")
    }
    for name in ["", "a b", "{*}", "é{", String(repeating: "}", count: 129)] {
      #expect(!ControlClient.isValidMachineName(name), "\(name)")
    }
  }
}
