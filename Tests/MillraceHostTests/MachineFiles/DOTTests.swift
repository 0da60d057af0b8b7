import Testing

@testable import MillraceHost

/// `millraced --dot KIND` output: nodes, the initial marker and one edge per row and state.
@Suite struct DOTTests {
  let catalog: KindCatalog

  init() throws {
    catalog = try KindCatalog(directory: TestData.examples)
  }

  @Test func authGraph() throws {
    let dot = try #require(catalog[kind: "auth"]).dot()
    let lines = dot.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.first == #"digraph "auth" {"#)
    #expect(lines.last == "}")
    for expected in [
      #""(start)" -> "loggedOut";"#,
      #""loggedOut" -> "loggingIn" [label="login\nafter 1s send loginOK (queue request, id req)"];"#,
      #""loggingIn" -> "loggedIn" [label="loginOK"];"#,
      #""loggingIn" -> "loggingOut" [label="forceLogout\nafter 1s send logoutOK (queue request)"];"#,
      #""loggedIn" -> "loggingOut" [label="forceLogout\nafter 1s send logoutOK (queue request)"];"#,
      #""loggingOut" -> "loggedOut" [label="logoutOK"];"#,
    ] {
      #expect(lines.contains(expected), "missing \(expected)")
    }
    #expect(lines.filter { $0.contains(" -> ") }.count == 7)
    #expect(!dot.contains("(any)"))
  }

  @Test func wildcardRowsComeFromTheAnyStateNode() throws {
    let light = try #require(catalog[kind: "traffic-light"]).dot()
    #expect(light.contains(#""(any)" [label="any state", style="rounded,dashed"];"#))
    #expect(light.contains(#""(any)" -> "(any)" [label="stop\ncancel cycle"];"#))
    #expect(
      light.contains(
        #""(any)" -> "(any)" [label="start\ncancel cycle\nevery 1s send tick (id cycle)"];"#))
    #expect(light.contains(#""red" -> "green" [label="tick\nemit green"];"#))
    let toggle = try #require(catalog[kind: "toggle"]).dot()
    #expect(toggle.contains(#""(any)" -> "on" [label="on"];"#))
    #expect(toggle.contains(#""off" -> "on" [label="flip"];"#))
  }

  @Test func wildcardInputIsAStar() throws {
    let dot = try compile(
      machine(#"{ "on": "*", "from": ["a", "b"] }"#, extra: #""states": ["a", "b"],"#)
    ).dot()
    #expect(dot.contains(#""a" -> "a" [label="*"];"#))
    #expect(dot.contains(#""b" -> "b" [label="*"];"#))
  }
}
