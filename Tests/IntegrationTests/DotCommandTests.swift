import Foundation
import Testing

/// `millraced --dot KIND` and `--mermaid KIND` draw a kind from the machine files, with the
/// daemon's own loader, or a built-in kind from its definition, with no daemon running.
@Suite struct DotCommandTests {
  let machines = DaemonProcess.repository + "/examples/machines"

  func millraced(_ arguments: [String], directory: String? = nil) throws -> (
    status: Int32, output: String
  ) {
    try DaemonProcess.run(
      DaemonProcess.product("millraced"), arguments, directory: directory)
  }

  @Test func drawsAKindFromTheMachineFiles() throws {
    // The default directory is the daemon's, ./examples/machines.
    let result = try millraced(["--dot", "auth"], directory: DaemonProcess.repository)
    #expect(result.status == 0, "\(result.output)")
    let lines = result.output.split(separator: "\n").map(String.init)
    let edges = [
      #"  "(start)" -> "loggedOut";"#,
      #"  "loggedOut" -> "loggingIn" [label="login\nafter 1s send loginOK (queue request, id req)"];"#,
      #"  "loggingIn" -> "loggedIn" [label="loginOK"];"#,
      #"  "loggingIn" -> "loggingOut" [label="forceLogout\nafter 1s send logoutOK (queue request)"];"#,
      #"  "loggedIn" -> "loggingOut" [label="forceLogout\nafter 1s send logoutOK (queue request)"];"#,
    ]
    for edge in edges { #expect(lines.contains(edge), "\(edge)\n\(result.output)") }
    #expect(lines.first == #"digraph "auth" {"# && lines.last == "}")

    let door = try millraced(["--machines", machines, "--dot", "door"])
    #expect(door.output.contains(#"  "opened" -> "closed" [label="close\ncancel autoclose"];"#))
  }

  @Test func builtInKindsDrawFromTheirDefinition() throws {
    let counter = try millraced(["--machines", machines, "--dot", "counter"])
    #expect(counter.status == 0, "\(counter.output)")
    #expect(counter.output.hasPrefix(#"digraph "counter" {"#))
    #expect(
      counter.output.contains(
        #"  "counting" -> "counting" [label="inc\nassign count = count + 1"];"#))
  }

  @Test func mermaidDrawsNestedStatesAsCompositeStates() throws {
    let result = try millraced(["--machines", machines, "--mermaid", "media-player"])
    #expect(result.status == 0, "\(result.output)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.first == "stateDiagram-v2")
    for line in ["  state on {", "    [*] --> playing", "  [*] --> off", "  ejected --> [*]"] {
      #expect(lines.contains(line), "missing \(line)\n\(result.output)")
    }
    let both = try millraced(["--machines", machines, "--dot", "auth", "--mermaid", "auth"])
    #expect(both.status != 0 && both.output.contains("--dot and --mermaid"))
  }

  @Test func anUnknownKindIsOneLineAndStatusOne() throws {
    let missing = try millraced(["--machines", machines, "--mermaid", "ghost"])
    #expect(missing.status == 1)
    #expect(
      missing.output
        == "millraced: no kind ghost in \(machines) (kinds there: auth, circuit-breaker, door, login, media-player, toggle, traffic-light; built in: counter)\n"
    )
  }

  @Test func badMachineFilesAreReported() throws {
    let directory = NSTemporaryDirectory() + "millrace-dot-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let bad = #"{"kind": "k", "initial": "a", "transitions": [{"on": "x", "from": "a", "to": 3}]}"#
    try bad.write(toFile: directory + "/k.json", atomically: true, encoding: .utf8)
    let result = try millraced(["--machines", directory, "--dot", "k"])
    #expect(result.status == 1)
    #expect(
      result.output.hasPrefix("millraced: cannot load \(directory):\nk.json: transitions[0].to"))
  }
}
