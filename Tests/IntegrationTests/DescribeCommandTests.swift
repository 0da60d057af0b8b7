import Foundation
import MillraceClient
import MillraceHost
import Testing

/// `DESCRIBE kind` and `DOT kind` through the real daemon, with redis-cli at its defaults and
/// with the project's client.
@Suite struct DescribeCommandTests {
  static let machines = DaemonProcess.repository + "/examples/machines"

  @Test func describeAnswersTheMachineFileAsLoaded() throws {
    let daemon = try DaemonProcess().start()
    let auth = try String(contentsOfFile: Self.machines + "/auth.json", encoding: .utf8)
    // redis-cli prints a bulk string as it is, then a line end.
    #expect(try daemon.redisCLI("DESCRIBE", "auth") == auth + "\n")
    let client = try daemon.client()
    #expect(try client.call("DESCRIBE", "auth") == .bulk(auth))
    let player = try String(contentsOfFile: Self.machines + "/media-player.json", encoding: .utf8)
    #expect(try client.call("describe", "media-player") == .bulk(player))
    #expect(try client.call("DESCRIBE", "counter") == .bulk(Counter.definition))
  }

  @Test func errorsAreThoseOfTheOtherKindCommands() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    for command in ["DESCRIBE", "DOT"] {
      #expect(try client.call(command, "ghost") == .error("NOKIND no kind ghost"))
      #expect(
        try client.call(command)
          == .error("ERR wrong number of arguments for '\(command.lowercased())' command"))
      #expect(try client.call(command, "a b").errorCode == "ERR")
    }
    #expect(try daemon.redisCLI("DESCRIBE", "ghost").hasPrefix("NOKIND no kind ghost\n"))
  }

  @Test func dotDrawsTheDefinitionForEveryKind() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    guard case .bulk(let counter?) = try client.call("DOT", "counter") else {
      Issue.record("DOT counter is not a bulk string")
      return
    }
    #expect(counter.hasPrefix(#"digraph "counter" {"#))
    #expect(counter.contains(#"  "counting" -> "counting" [label="reset"];"#))
    guard case .bulk(let player?) = try client.call("DOT", "media-player") else {
      Issue.record("DOT media-player is not a bulk string")
      return
    }
    #expect(player.contains(#"  subgraph "cluster_on" {"#))
    #expect(player.contains(#"  "ejected" [peripheries=2];"#))
    let door = try daemon.redisCLI("DOT", "door")
    #expect(door.hasPrefix(#"digraph "door" {"#))
    #expect(door.contains(#"  "opened" -> "closed" [label="close\ncancel autoclose"];"#))
  }

  @Test func commandDocsListDescribeAsAReadOnlyCommand() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    guard case .array(let info?) = try client.call("COMMAND", "INFO", "describe"),
      case .array(let describe?) = info.first
    else {
      Issue.record("COMMAND INFO describe")
      return
    }
    #expect(Array(describe.prefix(2)) == [.bulk("describe"), .integer(2)])
    #expect(describe[2].strings?.contains("readonly") == true)
    guard case .array(let docs?) = try client.call("COMMAND", "DOCS", "describe") else {
      Issue.record("COMMAND DOCS describe")
      return
    }
    #expect(docs.first == .bulk("describe") && docs.count == 2)
    #expect(try client.call("HELP").strings?.contains { $0.hasPrefix("DESCRIBE kind") } == true)
  }
}
