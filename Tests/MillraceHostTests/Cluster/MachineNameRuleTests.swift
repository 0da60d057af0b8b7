import Testing

@testable import MillraceHost

/// Machine names may hold `{` and `}`, so that hash tags group machines in one slot; kinds,
/// states and inputs keep the plain rule.
@Suite struct MachineNameRuleTests {
  @Test(arguments: ["pump:{A}", "pump:{A}:b", "{user1000}.following", "a{}", "}", "x"])
  func machineNamesTakeBraces(_ name: String) {
    #expect(NameRule.isValidMachineName(utf8: Array(name.utf8)))
  }

  @Test(arguments: ["", "a b", "{a}*", "é", String(repeating: "{", count: 129)])
  func machineNamesStillRefuse(_ name: String) {
    #expect(!NameRule.isValidMachineName(utf8: Array(name.utf8)))
  }

  @Test func otherNamesRefuseBraces() {
    #expect(!NameRule.isValid("pump:{A}"))
    #expect(NameRule.isValid("pump:A"))
  }
}
