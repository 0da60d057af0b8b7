import Foundation

/// Reads a cluster map file (`millraced --cluster-config FILE`, docs/cluster.md). The format,
/// one statement per line, words separated by spaces or tabs, `#` starting a comment:
///
/// ```
/// # node <id> <host>:<port> [<slot> | <first>-<last>] ...
/// node 07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:7001 0-5460
/// node 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:7002 5461-10922
/// node 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:7003 10923-16383
/// myself 07c37dfeb235213a872192d90877d0cd55635b91
/// ```
///
/// - `node`: an id of 40 lower-case hexadecimal characters (as Redis's node ids), the address
///   clients reach the node at (`[::1]:7001` for IPv6), and the slots it owns, as single slots
///   or ranges, in `0...16383`. A node may own no slot.
/// - `myself`: which node this daemon is, once per file.
/// - `migrating <slots> <id>`: this node's slots (single slots or ranges) whose machines are
///   moving to node `id`; `importing <slots> <id>`: slots of node `id` (or of none) whose
///   machines are moving here. A node writes them itself when `CLUSTER SETSLOT` opens a slot
///   (`ClusterMapWriter`), so that a restart in the middle of a move goes on with it.
///
/// Every problem is reported, each with its file and line: an unknown statement, a malformed
/// id, address, port or slot, a slot outside `0...16383` or owned twice, a duplicate id or
/// address, a `myself` that is missing, repeated or names no node, more than
/// `ClusterMap.maxNodes` nodes, a file over `maxBytes`. A slot no node owns is allowed (its
/// commands get `-CLUSTERDOWN`): `unassignedWarning` says which.
public enum ClusterMapReader {
  /// The largest map file read (a map of a thousand nodes is well under it).
  public static let maxBytes = 1 << 20

  /// Reads the map in the file at `path`.
  public static func read(path: String) throws(ClusterMapError) -> ClusterMap {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ClusterMapError(
        file: path,
        problems: [.init(line: nil, "cannot read the file: \(error.localizedDescription)")])
    }
    guard data.count <= maxBytes else {
      throw ClusterMapError(
        file: path, problems: [.init(line: nil, "larger than \(maxBytes) bytes: not a cluster map")]
      )
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw ClusterMapError(file: path, problems: [.init(line: nil, "not UTF-8 text")])
    }
    return try parse(text, file: path)
  }

  /// Parses a map's text; `file` names it in errors.
  public static func parse(_ text: String, file: String) throws(ClusterMapError) -> ClusterMap {
    var parser = Parser()
    // `\r\n` is one Character, a newline, as is `\n`.
    for (offset, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .enumerated()
    {
      let content = line.prefix { $0 != "#" }
      let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard let first = words.first else { continue }
      parser.line = offset + 1
      switch first {
      case "node": parser.node(Array(words.dropFirst()))
      case "myself": parser.myself(Array(words.dropFirst()))
      case "migrating", "importing": parser.open(String(first), Array(words.dropFirst()))
      default:
        parser.fail(
          "unknown statement \"\(first.prefix(40))\" (node, myself, migrating or importing)")
      }
    }
    let map = parser.finish()
    guard let map, parser.problems.isEmpty else {
      throw ClusterMapError(file: file, problems: parser.problems)
    }
    return map
  }

  /// The slots no node owns, as ranges (`100-199, 5000`), or nil when every slot is owned.
  public static func unassignedWarning(_ map: ClusterMap) -> String? {
    var free: [ClosedRange<Int>] = []
    for slot in 0..<HashSlot.count where map.ownerIndex(of: slot) == nil {
      if let last = free.last, last.upperBound == slot - 1 {
        free[free.count - 1] = last.lowerBound...slot
      } else {
        free.append(slot...slot)
      }
    }
    guard !free.isEmpty else { return nil }
    let text = free.map(SlotRangeText.format).joined(separator: ", ")
    let count = free.reduce(0) { $0 + $1.count }
    return "\(count) slots have no owner (commands on them get -CLUSTERDOWN): \(text)"
  }

  /// The statements read so far, and the problems found.
  private struct Parser {
    var line = 0
    var problems: [ClusterMapError.Problem] = []
    var nodes: [ClusterNode] = []
    var nodeLines: [Int] = []
    var owners = [UInt16](repeating: ClusterMap.unassigned, count: HashSlot.count)
    var myselfID: (id: String, line: Int)?
    /// The line of the first `myself` statement, well-formed or not.
    var myselfLine: Int?
    /// The well-formed ids of node lines, refused or not.
    var declaredIDs: Set<String> = []
    /// The slots of `migrating` and `importing` lines, with the other node's id and the line.
    var opened: [(migrating: Bool, slots: ClosedRange<Int>, id: String, line: Int)] = []

    mutating func fail(_ message: String) {
      problems.append(.init(line: line, message))
    }

    /// `node <id> <host>:<port> <slots>...`
    mutating func node(_ words: [Substring]) {
      let usage = "a node line is: node <id> <host>:<port> [<slot> | <first>-<last>] ..."
      guard let first = words.first else { return fail(usage) }
      let id = String(first)
      guard ClusterNode.isValidID(id) else {
        return fail(
          "node id \"\(id.prefix(60))\" is not 40 lower-case hexadecimal characters (0-9, a-f)")
      }
      if let other = nodes.firstIndex(where: { $0.id == id }) {
        return fail("node \(id) is already declared on line \(nodeLines[other])")
      }
      declaredIDs.insert(id)
      guard words.count >= 2 else { return fail(usage) }
      guard nodes.count < ClusterMap.maxNodes else {
        return fail("more than \(ClusterMap.maxNodes) nodes")
      }
      guard let (host, port) = address(words[1]) else { return }
      if let other = nodes.firstIndex(where: { $0.host == host && $0.port == port }) {
        return fail(
          "address \(words[1]) is already node \(nodes[other].id)'s (line \(nodeLines[other]))")
      }
      let index = UInt16(nodes.count)
      nodes.append(ClusterNode(id: id, host: host, port: port))
      nodeLines.append(line)
      for word in words.dropFirst(2) {
        let range: ClosedRange<Int>
        do {
          range = try SlotRangeText.parse(word)
        } catch {
          fail(Self.describe(error, word))
          continue
        }
        if let taken = range.first(where: { owners[$0] != ClusterMap.unassigned }) {
          let owner = Int(owners[taken])
          fail(
            "slot \(taken) (of \(word)) is already owned by node \(nodes[owner].id) "
              + "(line \(nodeLines[owner]))")
          continue
        }
        for slot in range { owners[slot] = index }
      }
    }

    /// What is wrong with the slots `word`.
    static func describe(_ failure: SlotRangeText.Failure, _ word: Substring) -> String {
      let limit = "0-\(HashSlot.count - 1)"
      switch failure {
      case .malformed:
        return "\"\(word.prefix(40))\" is not a slot or a range of slots (<slot> or <first>-<last>)"
      case .outOfRange(let slot):
        guard slot != Int.max else { return "\"\(word.prefix(40))\" names a slot outside \(limit)" }
        return "slot \(slot) is outside \(limit)"
      case .reversed: return "range \(word) ends before it starts"
      }
    }

    /// `host:port` or `[v6]:port`; reports and returns nil when malformed.
    mutating func address(_ word: Substring) -> (String, Int)? {
      let usage = "address \"\(word.prefix(80))\" is not <host>:<port> ([<IPv6>]:<port> for IPv6)"
      guard let colon = word.lastIndex(of: ":") else {
        fail(usage)
        return nil
      }
      var host = word[..<colon]
      if host.hasPrefix("[") && host.hasSuffix("]") {
        host = host.dropFirst().dropLast()
      } else if host.contains(":") {
        fail(usage)
        return nil
      }
      guard !host.isEmpty else {
        fail(usage)
        return nil
      }
      guard let port = Int(word[word.index(after: colon)...]), (1...65_535).contains(port) else {
        fail("port of \"\(word.prefix(80))\" is not a number in 1-65535")
        return nil
      }
      return (String(host), port)
    }

    /// `myself <id>`.
    mutating func myself(_ words: [Substring]) {
      if let earlier = myselfLine {
        return fail("myself is already given on line \(earlier)")
      }
      myselfLine = line
      guard words.count == 1 else { return fail("a myself line is: myself <id>") }
      myselfID = (String(words[0]), line)
    }

    /// `migrating <slots> <id>` or `importing <slots> <id>`: checked against the nodes once
    /// every line is read (`finish`).
    mutating func open(_ statement: String, _ words: [Substring]) {
      guard words.count == 2 else {
        return fail("a \(statement) line is: \(statement) <slot> | <first>-<last> <id>")
      }
      do {
        let slots = try SlotRangeText.parse(words[0])
        opened.append((statement == "migrating", slots, String(words[1]), line))
      } catch {
        fail(Self.describe(error, words[0]))
      }
    }

    /// Marks the slots of the `migrating` and `importing` lines in `map`, reporting those that
    /// name no node or this one, a slot this node does not own (migrating) or owns
    /// (importing), or a slot opened twice.
    mutating func markOpened(in map: inout ClusterMap) {
      var seen: [Int: Int] = [:]
      for statement in opened {
        line = statement.line
        let word = statement.migrating ? "migrating" : "importing"
        guard let other = map.index(ofID: statement.id) else {
          fail("\(word) names node \(statement.id.prefix(60)), which no node line declares")
          continue
        }
        guard other != map.myself else {
          fail("\(word) names this node itself (\(statement.id))")
          continue
        }
        for slot in statement.slots {
          if let earlier = seen[slot] {
            fail("slot \(slot) is already migrating or importing on line \(earlier)")
            break
          }
          seen[slot] = statement.line
          guard map.isMine(slot) == statement.migrating else {
            fail(
              statement.migrating
                ? "slot \(slot) is migrating but is not this node's"
                : "slot \(slot) is importing but is this node's already")
            break
          }
          if statement.migrating {
            map.markMigrating(slot, to: other)
          } else {
            map.markImporting(slot, from: other)
          }
        }
      }
    }

    /// The map, once every line was read; nil (with the problems said) when it has none.
    mutating func finish() -> ClusterMap? {
      guard !nodes.isEmpty || !problems.isEmpty else {
        problems.append(.init(line: nil, "no node line: a map declares its nodes"))
        return nil
      }
      guard let myselfID else {
        if myselfLine == nil {
          problems.append(
            .init(line: nil, "no myself line: name this node with \"myself <id>\""))
        }
        return nil
      }
      guard let index = nodes.firstIndex(where: { $0.id == myselfID.id }) else {
        // A node line refused above says what is wrong with it already.
        if !declaredIDs.contains(myselfID.id) {
          problems.append(
            .init(
              line: myselfID.line,
              "myself names \(myselfID.id.prefix(60)), which no node line declares"))
        }
        return nil
      }
      var map = ClusterMap(nodes: nodes, myself: index, owners: owners)
      markOpened(in: &map)
      return map
    }
  }
}
