import Foundation
import Testing

@testable import MillraceHost

/// The cluster map file: what it accepts, and every error, each named with its file and line.
@Suite struct ClusterMapReaderTests {
  static let a = String(repeating: "a", count: 39) + "1"
  static let b = String(repeating: "b", count: 39) + "2"
  static let c = String(repeating: "c", count: 39) + "3"

  /// The three-way split of the docs, with this node `myself`.
  static func threeNodes(myself: String = a) -> String {
    """
    # three nodes
    node \(a) 127.0.0.1:7001 0-5460
    node \(b) 127.0.0.1:7002 5461-10922
    node \(c) 127.0.0.1:7003 10923-16383
    myself \(myself)
    """
  }

  /// The problems `text` is refused with, as `line: message` (`-` for the whole file).
  func problems(_ text: String) -> [String] {
    do {
      _ = try ClusterMapReader.parse(text, file: "c.conf")
      return []
    } catch {
      #expect(error.file == "c.conf")
      return error.problems.map { "\($0.line.map(String.init) ?? "-"): \($0.message)" }
    }
  }

  @Test func readsTheThreeWaySplit() throws {
    let map = try ClusterMapReader.parse(Self.threeNodes(myself: Self.b), file: "c.conf")
    #expect(map.nodes.map(\.id) == [Self.a, Self.b, Self.c])
    #expect(map.nodes.map(\.address) == ["127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"])
    #expect(map.myself == 1)
    #expect(map.myselfNode.port == 7002)
    #expect(map.ownerIndex(of: 0) == 0 && map.ownerIndex(of: 5460) == 0)
    #expect(map.ownerIndex(of: 5461) == 1 && map.ownerIndex(of: 16383) == 2)
    #expect(map.isMine(10922) && !map.isMine(10923))
    #expect(map.assignedCount == 16384 && map.size == 3)
    #expect(map.ranges.map(\.slots) == [0...5460, 5461...10922, 10923...16383])
    #expect(map.ranges(of: 2) == [10923...16383])
    #expect(ClusterMapReader.unassignedWarning(map) == nil)
  }

  @Test func acceptsCommentsBlankLinesTabsCRLFIPv6SingleSlotsAndEmptyNodes() throws {
    let text = [
      "", "   # a comment", "myself \(Self.c)   # trailing comment",
      "node\t\(Self.a)\t[::1]:7001\t0-99 100 200-300\r", "node \(Self.b) localhost:7002",
      "node \(Self.c) 10.0.0.3:65535 16383", "",
    ].joined(separator: "\n")
    let map = try ClusterMapReader.parse(text, file: "c.conf")
    #expect(map.nodes[0].host == "::1" && map.nodes[0].address == "::1:7001")
    #expect(map.ranges(of: 0) == [0...100, 200...300])
    #expect(map.ranges(of: 1) == [])
    #expect(map.myself == 2 && map.ranges(of: 2) == [16383...16383])
    #expect(map.assignedCount == 203 && map.size == 2)
    #expect(
      ClusterMapReader.unassignedWarning(map)
        == "16181 slots have no owner (commands on them get -CLUSTERDOWN): 101-199, 301-16382")
  }

  @Test func statementErrors() {
    let node = "node \(Self.a) 127.0.0.1:7001 0-16383"
    #expect(
      problems("\(node)\nmyself \(Self.a)\nnodes x\n") == [
        "3: unknown statement \"nodes\" (node, myself, migrating or importing)"
      ])
    #expect(
      problems("node \(Self.a)\nmyself \(Self.a)") == [
        "1: a node line is: node <id> <host>:<port> [<slot> | <first>-<last>] ..."
      ])
    #expect(problems("\(node)\nmyself") == ["2: a myself line is: myself <id>"])
    #expect(problems("\(node)\nmyself \(Self.a) \(Self.b)") == ["2: a myself line is: myself <id>"])
  }

  @Test func idErrors() {
    for id in ["abc", String(repeating: "A", count: 40), String(repeating: "g", count: 40)] {
      #expect(
        problems("node \(id) 127.0.0.1:7001\nmyself \(Self.a)") == [
          "1: node id \"\(id)\" is not 40 lower-case hexadecimal characters (0-9, a-f)",
          "2: myself names \(Self.a), which no node line declares",
        ])
    }
    #expect(
      problems("node \(Self.a) 127.0.0.1:7001\nnode \(Self.a) 127.0.0.1:7002\nmyself \(Self.a)")
        == ["2: node \(Self.a) is already declared on line 1"])
  }

  @Test func addressErrors() {
    for address in ["7001", "127.0.0.1", ":7001", "::1:7001", "[::1]7001", "[]:7001"] {
      #expect(
        problems("node \(Self.a) \(address)\nmyself \(Self.a)") == [
          "1: address \"\(address)\" is not <host>:<port> ([<IPv6>]:<port> for IPv6)"
        ], "\(address)")
    }
    for address in ["h:0", "h:65536", "h:x", "h:-1", "h:"] {
      #expect(
        problems("node \(Self.a) \(address)\nmyself \(Self.a)") == [
          "1: port of \"\(address)\" is not a number in 1-65535"
        ], "\(address)")
    }
    #expect(
      problems("node \(Self.a) h:1\nnode \(Self.b) h:1\nmyself \(Self.a)") == [
        "2: address h:1 is already node \(Self.a)'s (line 1)"
      ])
  }

  @Test func slotErrors() {
    func slotProblems(_ words: String) -> [String] {
      problems("node \(Self.a) h:1 \(words)\nmyself \(Self.a)")
    }
    #expect(slotProblems("16384") == ["1: slot 16384 is outside 0-16383"])
    #expect(slotProblems("0-16384") == ["1: slot 16384 is outside 0-16383"])
    #expect(
      slotProblems("99999999999999999999")
        == ["1: \"99999999999999999999\" names a slot outside 0-16383"])
    #expect(slotProblems("10-5") == ["1: range 10-5 ends before it starts"])
    for word in ["x", "1-", "-5", "1-2-3", "+1", "0x10", "1..2"] {
      #expect(
        slotProblems(word) == [
          "1: \"\(word)\" is not a slot or a range of slots (<slot> or <first>-<last>)"
        ], "\(word)")
    }
    #expect(
      slotProblems("0-10 5") == ["1: slot 5 (of 5) is already owned by node \(Self.a) (line 1)"])
    #expect(
      problems("node \(Self.a) h:1 0-100\nnode \(Self.b) h:2 50-60 200\nmyself \(Self.a)") == [
        "2: slot 50 (of 50-60) is already owned by node \(Self.a) (line 1)"
      ])
  }

  @Test func myselfErrors() {
    let node = "node \(Self.a) h:1 0-16383"
    #expect(problems(node) == ["-: no myself line: name this node with \"myself <id>\""])
    #expect(
      problems("\(node)\nmyself \(Self.b)") == [
        "2: myself names \(Self.b), which no node line declares"
      ])
    #expect(
      problems("myself \(Self.a)\n\(node)\nmyself \(Self.a)") == [
        "3: myself is already given on line 1"
      ])
    #expect(problems("# nothing\n\n") == ["-: no node line: a map declares its nodes"])
  }

  @Test func everyProblemIsReportedAtOnce() {
    let text = "node \(Self.a) h:1 0-20000\nnode x h:2\nbogus\nnode \(Self.b) h 5\n"
    #expect(
      problems(text) == [
        "1: slot 20000 is outside 0-16383",
        "2: node id \"x\" is not 40 lower-case hexadecimal characters (0-9, a-f)",
        "3: unknown statement \"bogus\" (node, myself, migrating or importing)",
        "4: address \"h\" is not <host>:<port> ([<IPv6>]:<port> for IPv6)",
        "-: no myself line: name this node with \"myself <id>\"",
      ])
  }

  @Test func atMostAThousandNodes() {
    let lines = (0...ClusterMap.maxNodes).map { index in
      "node \(String(format: "%040x", index + 1)) h:\(index + 1)"
    }
    let text = (lines + ["myself \(String(format: "%040x", 1))"]).joined(separator: "\n")
    #expect(problems(text) == ["1001: more than 1000 nodes"])
  }

  @Test func fileErrorsNameTheFile() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cluster-map-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func readProblems(_ name: String) -> String {
      do {
        _ = try ClusterMapReader.read(path: directory.appendingPathComponent(name).path)
        return ""
      } catch {
        return error.description
      }
    }
    let missing = directory.appendingPathComponent("missing.conf").path
    #expect(readProblems("missing.conf").hasPrefix("\(missing): cannot read the file: "))
    try Data([0x6e, 0xff, 0xfe]).write(to: directory.appendingPathComponent("binary.conf"))
    #expect(
      readProblems("binary.conf") == directory.appendingPathComponent("binary.conf").path
        + ": not UTF-8 text")
    try Data(count: ClusterMapReader.maxBytes + 1).write(
      to: directory.appendingPathComponent("huge.conf"))
    #expect(
      readProblems("huge.conf") == directory.appendingPathComponent("huge.conf").path
        + ": larger than 1048576 bytes: not a cluster map")
    try Data(Self.threeNodes().utf8).write(to: directory.appendingPathComponent("good.conf"))
    #expect(readProblems("good.conf") == "")
    try Data("node x h:1\n".utf8).write(to: directory.appendingPathComponent("bad.conf"))
    let bad = directory.appendingPathComponent("bad.conf").path
    #expect(
      readProblems("bad.conf") == """
        \(bad):1: node id "x" is not 40 lower-case hexadecimal characters (0-9, a-f)
        \(bad): no myself line: name this node with "myself <id>"
        """)
  }
}
