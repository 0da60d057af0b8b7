import Foundation
import MillraceClient
import Testing

/// Real `millraced` nodes of one cluster on loopback TCP ports (each a `DaemonProcess` in its
/// own temporary directory, with its own copy of the map naming it `myself`), as a user would
/// run them: `millraced --cluster-config cluster.conf`, listening where the map says.
final class ClusterNodes {
  let nodes: [DaemonProcess]
  let ports: [Int]
  let ids: [String]
  /// Each node's slot ranges, by node.
  var ranges: [[ClosedRange<Int>]]

  /// The even three-way split of `redis-cli --cluster create`.
  static let threeWaySplit: [[ClosedRange<Int>]] = [[0...5460], [5461...10922], [10923...16383]]

  /// `ranges.count` nodes owning `ranges`, each started with `extraArguments` and the machine
  /// files of `machines` (the shipped examples by default).
  init(
    _ ranges: [[ClosedRange<Int>]] = threeWaySplit, extraArguments: [String] = [],
    machines: String? = nil
  ) throws {
    self.ranges = ranges
    ports = try DaemonProcess.freePorts(ranges.count)
    ids = ranges.indices.map { String(format: "%040x", 0xc1 << 8 + $0) }
    nodes = ranges.indices.map { _ in DaemonProcess(machines: machines) }
    for (index, node) in nodes.enumerated() {
      node.arguments += ["--cluster-config", mapPath(index)] + extraArguments
      try writeMap(for: index)
    }
  }

  /// Starts every node and waits until each answers.
  @discardableResult
  func start(sourceLocation: SourceLocation = #_sourceLocation) throws -> ClusterNodes {
    for node in nodes { try node.start(sourceLocation: sourceLocation) }
    return self
  }

  /// Node `index`'s map file.
  func mapPath(_ index: Int) -> String { nodes[index].directory + "/cluster.conf" }

  /// The map text, as node `myself` reads it.
  func mapText(myself: Int) -> String {
    let lines = ranges.indices.map { index in
      let slots = ranges[index].map { "\($0.lowerBound)-\($0.upperBound)" }
      return (["node", ids[index], "127.0.0.1:\(ports[index])"] + slots).joined(separator: " ")
    }
    return (["# written by ClusterNodes"] + lines + ["myself \(ids[myself])"])
      .joined(separator: "\n") + "\n"
  }

  /// Writes node `index`'s map file from `ranges`.
  func writeMap(for index: Int) throws {
    try mapText(myself: index).write(toFile: mapPath(index), atomically: true, encoding: .utf8)
  }

  /// A connection to node `index` (its Unix socket).
  func client(_ index: Int) throws -> ControlClient { try nodes[index].client() }

  /// `host:port` of node `index`.
  func address(_ index: Int) -> String { "127.0.0.1:\(ports[index])" }

  /// The index of the node owning `slot`.
  func owner(of slot: Int) -> Int {
    ranges.firstIndex { $0.contains { $0.contains(slot) } }!
  }

  /// Sends SIGHUP to node `index` and waits (up to 10 s) until its log shows `text` after
  /// what it showed before.
  func reload(_ index: Int, until text: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let node = nodes[index]
    let before = node.logText.components(separatedBy: text).count
    guard let pid = node.process?.processIdentifier else {
      Issue.record("node \(index) is not running", sourceLocation: sourceLocation)
      return
    }
    kill(pid, SIGHUP)
    for _ in 0..<200 {
      if node.logText.components(separatedBy: text).count > before { return }
      usleep(50_000)
    }
    Issue.record(
      "node \(index) did not log \"\(text)\" after SIGHUP:\n\(node.logText)",
      sourceLocation: sourceLocation)
  }

  /// The redis-py interpreter of the client matrix's virtual environment (`make clients-deps`
  /// makes it; `make test` does before `swift test`), or `CLIENTS_PYTHON`.
  static var python: String {
    ProcessInfo.processInfo.environment["CLIENTS_PYTHON"]
      ?? DaemonProcess.repository + "/.build/clients-venv/bin/python"
  }

  /// `python`, once it is there; else the test fails, saying how to make it.
  static func requirePython(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(
      FileManager.default.isExecutableFile(atPath: python),
      "no redis-py at \(python): `make clients-deps` makes it (`make test` does)",
      sourceLocation: sourceLocation)
    return python
  }
}
