import Testing

@testable import MillraceHost

/// Glob patterns match as Redis's `stringmatchlen` does, and cheaply on hostile patterns.
@Suite struct GlobPatternTests {
  /// Patterns and names with what redis-server 7.0.15 (Debian, x86-64) answered: each name was
  /// set as a key, and `KEYS pattern` listed it or not.
  static let redisCases: [(pattern: String, name: String, matches: Bool)] = [
    ("", "", true),
    ("", "a", false),
    ("a", "", false),
    ("abc", "abc", true),
    ("abc", "abd", false),
    ("abc", "ab", false),
    ("abc", "abcd", false),
    ("ABC", "abc", false),
    ("door.*", "door.1", true),
    ("door.*", "door.", true),
    ("door.*", "door", false),
    ("door.*", "doors", false),
    ("door.**", "door.", true),
    ("**", "", false),
    ("**", "x", true),
    ("*", "x", true),
    ("*.log", "a.log", true),
    ("*.log", ".log", true),
    ("*.log", "a.log.x", false),
    ("*a*b*", "xxaxxbxx", true),
    ("*a*b*", "xxbxxaxx", false),
    ("a*b", "ab", true),
    ("a*b", "a", false),
    ("a*b", "abc", false),
    ("a*b", "abab", true),
    ("**a", "a", true),
    ("a**", "a", true),
    ("*?", "", false),
    ("*?", "a", true),
    ("h?llo", "hello", true),
    ("h?llo", "hllo", false),
    ("h*llo", "hllo", true),
    ("h*llo", "heeeello", true),
    ("?", "", false),
    ("??", "é", true),
    ("?*?", "a", false),
    ("?*?", "ab", true),
    ("h[ae]llo", "hallo", true),
    ("h[ae]llo", "hillo", false),
    ("h[^e]llo", "hallo", true),
    ("h[^e]llo", "hello", false),
    ("h[a-b]llo", "hbllo", true),
    ("h[b-a]llo", "hallo", true),
    ("[z-a]", "m", true),
    ("[a-z]", "A", false),
    ("[a-c-e]", "d", false),
    ("[a-c-e]", "-", true),
    ("[a-c-e]", "e", true),
    ("[-a]", "-", true),
    ("[^a-c]", "b", false),
    ("[^a-c]", "d", true),
    ("[^a-c]", "", false),
    ("[ab]", "ab", false),
    ("[a-]", "_", true),
    ("[a-]", "]", true),
    ("[a-]", "b", false),
    ("[a-]x]", "x", true),
    ("[a-]x]", "_x]", false),
    ("[]", "]", false),
    ("[]a]", "]", false),
    ("[]a]", "a]", false),
    ("[^]", "x", true),
    ("[^]a", "xa", true),
    ("[", "[", false),
    ("[", "a", false),
    ("a[", "a[", false),
    ("[^", "x", true),
    ("[^", "", false),
    ("[ab", "a", true),
    ("[ab", "b", true),
    ("[ab", "ab", false),
    ("*[", "a[", false),
    ("[*]", "*", true),
    ("[*]", "a", false),
    ("[?]", "a", false),
    ("\\*", "*", true),
    ("\\*", "a", false),
    ("\\?", "?", true),
    ("\\[a]", "[a]", true),
    ("\\a", "a", true),
    ("a\\", "a\\", true),
    ("\\", "\\", true),
    ("[\\]]", "]", true),
    ("[a\\-c]", "b", false),
    ("[a\\-c]", "-", true),
    ("[\\", "\\", true),
    ("[\\^a]", "^", true),
    ("*\\*", "a*", true),
    ("*\\*", "a", false),
  ]

  /// Byte strings that are not UTF-8, and ranges across 0x80 (where Redis compares C's signed
  /// `char`), with redis-server's answers as above.
  static let redisByteCases: [(pattern: [UInt8], name: [UInt8], matches: Bool)] = [
    ([0x5B, 0x61, 0x2D, 0xFF, 0x5D], [0xFF], true),
    ([0x5B, 0x61, 0x2D, 0xFF, 0x5D], [0x62], false),
    ([0x5B, 0x61, 0x2D, 0xFF, 0x5D], [0x30], true),
    ([0x5B, 0x61, 0x2D, 0xFF, 0x5D], [0x80], false),
    ([0x5B, 0x80, 0x2D, 0xFF, 0x5D], [0x90], true),
    ([0x5B, 0x80, 0x2D, 0xFF, 0x5D], [0x61], false),
    ([0x5B, 0x01, 0x2D, 0x7F, 0x5D], [0x80], false),
    ([0x5B, 0x01, 0x2D, 0x7F, 0x5D], [0x7F], true),
    ([0xC3, 0xA9, 0x2A], [0xC3, 0xA9, 0x74, 0xC3, 0xA9], true),
    ([0x61, 0x00, 0x2A], [0x61, 0x00, 0x62], true),
    ([0x61, 0x00, 0x2A], [0x61], false),
    ([0x5B, 0x00, 0x5D], [0x00], true),
  ]

  /// The pattern's answer for `name`, checked to be the same through every entry point.
  private func matches(_ pattern: [UInt8], _ name: [UInt8]) -> Bool {
    let glob = GlobPattern(pattern)
    let answer = glob.matches(name)
    #expect(name.withUnsafeBytes { glob.matches($0) } == answer)
    #expect(glob.matches(name.lazy.map { $0 }) == answer)  // not contiguous: copied first
    return answer
  }

  @Test func answersAsRedisDoes() {
    for (pattern, name, expected) in Self.redisCases {
      #expect(
        matches(Array(pattern.utf8), Array(name.utf8)) == expected, "\(pattern) ~ \(name)")
      #expect(GlobPattern(pattern).matches(name) == expected, "\(pattern) ~ \(name)")
    }
    for (pattern, name, expected) in Self.redisByteCases {
      #expect(matches(pattern, name) == expected, "\(pattern) ~ \(name)")
    }
  }

  @Test func starAloneIsMatchAllButMatchesNoEmptyName() {
    // `KEYS *` and `SCAN` list an empty key because they skip matching for `*` alone; the
    // matcher itself (`KEYS **` above) does not match it.
    #expect(GlobPattern("*").isMatchAll)
    #expect(!GlobPattern("*").matches(""))
    #expect(GlobPattern("*").matches("x"))
    for pattern in ["**", "", "a*", "\\*", "[*]"] { #expect(!GlobPattern(pattern).isMatchAll) }
  }

  @Test func equalityIsByBytes() {
    #expect(GlobPattern("news.*") == GlobPattern(Array("news.*".utf8)))
    #expect(GlobPattern("news.*") != GlobPattern("news.**"))
    #expect(Set([GlobPattern("a*"), GlobPattern("a*"), GlobPattern("b")]).count == 2)
    #expect(GlobPattern("é?").bytes == [0xC3, 0xA9, 0x3F])
  }

  @Test func aThousandStarGroupsAtMostBeforeTheLastOne() {
    // What redis-server answered for these (its nesting limit): a match fails on reaching the
    // 1001st group of stars unless that group ends the pattern.
    let thousandAsX = String(repeating: "a", count: 1000) + "x"
    let thousandAndOneAs = String(repeating: "a", count: 1001)
    let aStar = { (groups: Int) in String(repeating: "a*", count: groups) }
    let starA = { (groups: Int) in String(repeating: "*a", count: groups) }
    #expect(GlobPattern(aStar(1000) + "x").matches(thousandAsX))
    #expect(!GlobPattern(aStar(1001) + "x").matches(thousandAndOneAs + "x"))
    #expect(GlobPattern(starA(1000)).matches(thousandAndOneAs))
    #expect(!GlobPattern(starA(1001)).matches(thousandAndOneAs))
    #expect(GlobPattern(aStar(1001)).matches(thousandAndOneAs))
    #expect(GlobPattern(aStar(1001)).matches(thousandAndOneAs + "x"))
    #expect(!GlobPattern(aStar(1001)).matches(thousandAsX))
  }

  /// The work `pattern` does on `name`, in matcher steps.
  private func steps(_ pattern: String, _ name: String) -> (matches: Bool, steps: Int) {
    var steps = 0
    let matches = name.withUTF8Bytes { GlobPattern(pattern).matches($0, steps: &steps) }
    return (matches, steps)
  }

  @Test func hostilePatternsStayCheap() {
    // Backtracking into every star would try about C(128, 10) ≈ 2·10¹⁵ splits here; the
    // matcher gives a longer part of the name to the last star reached only, so its work is
    // below (name + star groups + 1) attempts of at most the pattern's length each.
    let hostile = "a*a*a*a*a*a*a*a*a*a*b"
    let name = String(repeating: "a", count: 128)
    let bound = (name.utf8.count + 10 + 1) * hostile.utf8.count
    let failing = steps(hostile, name)
    #expect(!failing.matches)
    #expect(failing.steps <= bound)
    let succeeding = steps(hostile, name + "b")
    #expect(succeeding.matches)
    #expect(succeeding.steps <= bound + hostile.utf8.count)
    // Longer: 200 star groups against 64 KiB.
    let wide = String(repeating: "*a", count: 200) + "*b"
    let long = String(repeating: "a", count: 65_536)
    let wideSteps = steps(wide, long)
    #expect(!wideSteps.matches)
    #expect(wideSteps.steps <= (long.utf8.count + 202) * wide.utf8.count)
  }

  @Test func fastPathsCostOneStep() {
    #expect(steps("door.7", "door.7") == (true, 1))
    #expect(steps("door.*", "door.7") == (true, 1))
    #expect(steps("*", "door.7") == (true, 1))
    #expect(steps("door.?", "door.7").steps > 1)
  }
}
