import Foundation
import MillraceClient
import MillraceHost
import Testing

/// `millraced --cluster-config`: three real nodes with a three-way slot split, driven with the
/// project's client over each node's socket. Replies are the ones redis-server 7.0 gives in
/// cluster mode (`ClusterParityTests` compares them with one).
@Suite("Cluster nodes", .hangGuard)
struct ClusterTests {
  /// `bar` is in slot 5061 (node 0), `c` in 7365 (node 1), `foo` in 12182 (node 2).
  static let names = ["bar": 0, "c": 1, "foo": 2]

  @Test("CLUSTER SLOTS, SHARDS, NODES, INFO, MYID and KEYSLOT describe the map, RESP2 and RESP3")
  func describeTheMap() throws {
    let cluster = try ClusterNodes().start()
    for version in ["2", "3"] {
      let client = try cluster.client(1)
      _ = try client.call("HELLO", version)
      #expect(try client.call("CLUSTER", "MYID").string == cluster.ids[1])
      #expect(try client.call("CLUSTER", "KEYSLOT", "{user1000}.following") == .integer(3443))
      let slots = try client.call("CLUSTER", "SLOTS")
      let expected: [RESPValue] = cluster.ranges.indices.map { index in
        let range = cluster.ranges[index][0]
        return .array([
          .integer(range.lowerBound), .integer(range.upperBound),
          .array([
            .bulk("127.0.0.1"), .integer(cluster.ports[index]), .bulk(cluster.ids[index]),
            version == "3" ? .map([]) : .array([]),
          ]),
        ])
      }
      #expect(slots == .array(expected), "RESP\(version)")
      let nodes = try #require(try client.call("CLUSTER", "NODES").string)
      #expect(
        nodes.split(separator: "\n").map(String.init)
          == cluster.ranges.indices.map { index in
            let flags = index == 1 ? "myself,master" : "master"
            let range = cluster.ranges[index][0]
            return "\(cluster.ids[index]) 127.0.0.1:\(cluster.ports[index])@0 \(flags) - 0 0 0 "
              + "connected \(range.lowerBound)-\(range.upperBound)"
          })
      let info = try #require(try client.call("CLUSTER", "INFO").string)
      for line in [
        "cluster_state:ok", "cluster_slots_assigned:16384", "cluster_slots_ok:16384",
        "cluster_known_nodes:3", "cluster_size:3",
      ] {
        #expect(info.contains(line + "\r\n"), "\(line) in \(info)")
      }
      let shards = try client.call("CLUSTER", "SHARDS")
      guard case .array(let list?) = shards, list.count == 3 else {
        Issue.record("SHARDS: \(shards)")
        continue
      }
      for (index, shard) in list.enumerated() {
        let fields = try #require(shard.pairs, "RESP\(version): \(shard)")
        #expect(fields.map(\.key) == [.bulk("slots"), .bulk("nodes")])
        let range = cluster.ranges[index][0]
        #expect(
          fields[0].value == .array([.integer(range.lowerBound), .integer(range.upperBound)]))
        guard case .array(let members?) = fields[1].value, let node = members.first?.pairs else {
          Issue.record("shard \(index): \(shard)")
          continue
        }
        #expect(
          node.map { $0.key.string ?? "" } == [
            "id", "port", "ip", "endpoint", "role", "replication-offset", "health",
          ])
        #expect(node[0].value == .bulk(cluster.ids[index]))
        #expect(node[1].value == .integer(cluster.ports[index]))
        #expect(node[4].value == .bulk("master") && node[6].value == .bulk("online"))
      }
      let hello = try client.call("HELLO", version)
      #expect(hello.pairs?.first { $0.key == .bulk("mode") }?.value == .bulk("cluster"))
      let infoServer = try #require(try client.call("INFO").string)
      #expect(infoServer.contains("redis_mode:cluster\r\n"))
      #expect(infoServer.contains("# Cluster\r\ncluster_enabled:1\r\n"))
    }
  }

  @Test("a request for another node's machine is MOVED there; one in two slots is CROSSSLOT")
  func redirections() throws {
    let cluster = try ClusterNodes().start()
    for (name, owner) in Self.names {
      let slot = Int(HashSlot.of(name))
      #expect(cluster.owner(of: slot) == owner)
      for index in 0..<3 {
        let client = try cluster.client(index)
        let moved = RESPValue.error("MOVED \(slot) \(cluster.address(owner))")
        guard index == owner else {
          for words in [
            ["SPAWN", "counter", name], ["SEND", name, "inc"], ["STATE", name], ["KILL", name],
            ["SEND", name, "inc", "with", "arguments"], ["STATE", name, "WITHCONTEXT"],
          ] {
            #expect(try client.call(words) == moved, "node \(index): \(words)")
          }
          continue
        }
        #expect(try client.call("SPAWN", "counter", name) == .simple("OK"))
        #expect(try client.call("SEND", name, "inc").strings == ["0", "1"])
        #expect(try client.call("STATE", name) == .bulk("1"))
      }
    }
    // Keyless requests are served wherever they arrive: each node lists its own machines.
    for (name, owner) in Self.names {
      #expect(try cluster.client(owner).call("LIST").strings == [name])
    }
    // A request whose keys are in two slots, even both on this node.
    let client = try cluster.client(0)
    let crossSlot = RESPValue.error("CROSSSLOT Keys in request don't hash to the same slot")
    #expect(try client.call("WATCH", "bar", "b") == crossSlot)
    #expect(try client.call("SUBSCRIBE", "bar", "foo") == crossSlot)
    // Same slot (a hash tag): through to the command itself.
    #expect(try client.call("WATCH", "{bar}x", "bar").errorCode == "ERR")
    // Arity and unknown commands are answered first, as Redis does.
    #expect(
      try client.call("SEND", "foo")
        == .error("ERR wrong number of arguments for 'send' command"))
    #expect(try client.call("CLUSTER", "COUNTKEYSINSLOT", "5061") == .integer(1))
    #expect(try client.call("CLUSTER", "GETKEYSINSLOT", "5061", "10").strings == ["bar"])
    #expect(try cluster.client(2).call("CLUSTER", "COUNTKEYSINSLOT", "5061") == .integer(0))
  }

  @Test("hash tags keep related machines on one node")
  func hashTags() throws {
    let cluster = try ClusterNodes().start()
    // pump:{A} and pump:{A}:b are in A's slot, 6373: node 1.
    let client = try cluster.client(1)
    for name in ["pump:{A}", "pump:{A}:b", "{A}"] {
      #expect(try client.call("SPAWN", "toggle", name) == .simple("OK"), "\(name)")
      #expect(try client.call("SEND", name, "flip").strings == ["off", "on"])
    }
    #expect(
      try cluster.client(0).call("STATE", "pump:{A}:b")
        == .error("MOVED 6373 \(cluster.address(1))"))
    #expect(try client.call("CLUSTER", "COUNTKEYSINSLOT", "6373") == .integer(3))
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "pump:{A}", "flip") == .simple("QUEUED"))
    #expect(try client.call("SEND", "pump:{A}:b", "flip") == .simple("QUEUED"))
    #expect(
      try client.call("EXEC")
        == .array([
          .array([.bulk("on"), .bulk("off")]),
          .array([.bulk("on"), .bulk("off")]),
        ]))
  }

  @Test("MULTI: a redirected request dooms the EXEC, two slots are CROSSSLOT at EXEC; none runs")
  func transactions() throws {
    let cluster = try ClusterNodes().start()
    let client = try cluster.client(0)
    for name in ["bar", "b"] {  // slots 5061 and 3300, both node 0's
      #expect(try client.call("SPAWN", "counter", name) == .simple("OK"))
    }
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "bar", "inc") == .simple("QUEUED"))
    #expect(try client.call("SEND", "foo", "inc") == .error("MOVED 12182 \(cluster.address(2))"))
    #expect(
      try client.call("EXEC")
        == .error("EXECABORT Transaction discarded because of previous errors."))
    // As Redis: each queued request is checked on its own, the slots of all of them at EXEC.
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "bar", "inc") == .simple("QUEUED"))
    #expect(try client.call("SEND", "b", "inc") == .simple("QUEUED"))
    #expect(
      try client.call("EXEC") == .error("CROSSSLOT Keys in request don't hash to the same slot"))
    #expect(try client.call("EXEC") == .error("ERR EXEC without MULTI"))
    #expect(try client.call("STATE", "bar") == .bulk("0"))
    #expect(try client.call("STATE", "b") == .bulk("0"))
    // The slot was given away between queueing and EXEC: MOVED, and nothing runs.
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SPAWN", "counter", "{b}new") == .simple("QUEUED"))
    let other = try cluster.client(0)
    #expect(try other.call("KILL", "b") == .simple("OK"))
    #expect(try other.call("CLUSTER", "SETSLOT", "3300", "NODE", cluster.ids[1]) == .simple("OK"))
    #expect(try client.call("EXEC") == .error("MOVED 3300 \(cluster.address(1))"))
    #expect(try client.call("CLUSTER", "COUNTKEYSINSLOT", "3300") == .integer(0))
    // One slot, this node's: runs.
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "bar", "inc") == .simple("QUEUED"))
    #expect(try client.call("PING") == .simple("QUEUED"))
    #expect(try client.call("SEND", "{bar}", "inc").errorCode == nil)
    #expect(try client.call("EXEC").arrayCount == 3)
    #expect(try client.call("STATE", "bar") == .bulk("1"))
  }

  @Test("CLUSTER SETSLOT gives an empty slot away at run time, never one holding machines")
  func setSlot() throws {
    let cluster = try ClusterNodes().start()
    let node0 = try cluster.client(0)
    let node1 = try cluster.client(1)
    #expect(try node0.call("SPAWN", "counter", "bar") == .simple("OK"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "5061", "NODE", cluster.ids[1])
        == .error(
          "ERR Can't assign hashslot 5061 to a different node while I still hold keys for this "
            + "hash slot."))
    #expect(try node0.call("STATE", "bar") == .bulk("0"))
    // The errors Redis gives.
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "16384", "NODE", cluster.ids[1])
        == .error("ERR Invalid or out of range slot"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "1", "NODE", "nope") == .error("ERR Unknown node nope"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "1", "BOGUS")
        == .error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP"))
    #expect(try node0.call("CLUSTER", "SETSLOT", "1", "STABLE") == .simple("OK"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "6000", "MIGRATING", cluster.ids[1])
        == .error("ERR I'm not the owner of hash slot 6000"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "1", "IMPORTING", cluster.ids[1])
        == .error("ERR I'm already the owner of hash slot 1"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "1", "MIGRATING", "nope")
        == .error("ERR I don't know about node nope"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "1", "MIGRATING", cluster.ids[0])
        == .error("ERR Target node is this node itself"))
    // "b" is in slot 3300, node 0's and empty: hand it to node 1 on both nodes.
    for client in [node0, node1] {
      #expect(
        try client.call("CLUSTER", "SETSLOT", "3300", "NODE", cluster.ids[1]) == .simple("OK"))
    }
    #expect(try node0.call("SPAWN", "counter", "b") == .error("MOVED 3300 \(cluster.address(1))"))
    #expect(try node1.call("SPAWN", "counter", "b") == .simple("OK"))
    let slots = try #require(try node0.call("CLUSTER", "SLOTS").values)
    #expect(slots.count == 5)
    // Each change is in the node's map file, which a restart reads.
    #expect(
      cluster.nodes[0].logText.contains("CLUSTER SETSLOT 3300 NODE \(cluster.ids[1]): written to"))
    let written = try String(contentsOfFile: cluster.mapPath(0), encoding: .utf8)
    #expect(written.contains("node \(cluster.ids[1]) \(cluster.address(1)) 3300 5461-10922"))
    #expect(!cluster.nodes[0].logText.contains("SETSLOT 1 STABLE"))
  }

  @Test("SIGHUP reloads the map file, and keeps the map when the new one would strand machines")
  func reload() throws {
    let cluster = try ClusterNodes().start()
    let node0 = try cluster.client(0)
    #expect(try node0.call("SPAWN", "counter", "bar") == .simple("OK"))
    // Node 0 gives 0-999 to node 1 (no machine there); every node's file says so.
    cluster.ranges = [[1000...5460], [0...999, 5461...10922], [10923...16383]]
    for index in 0..<3 { try cluster.writeMap(for: index) }
    try cluster.reload(0, until: "reloaded the cluster map")
    #expect(try node0.call("SPAWN", "counter", "m:{}:x") == .simple("OK"))  // slot 2281
    // 0-999 is node 1's now.
    let low = try #require((0..<10_000).map { "n\($0)" }.first { HashSlot.of($0) < 1000 })
    #expect(
      try node0.call("SPAWN", "counter", low)
        == .error("MOVED \(HashSlot.of(low)) \(cluster.address(1))"))
    // A map that takes bar's slot away is refused; the map stays.
    cluster.ranges = [[0...5000], [5001...10922], [10923...16383]]
    try cluster.writeMap(for: 0)
    try cluster.reload(0, until: "cluster map reload refused")
    #expect(cluster.nodes[0].logText.contains("which hosts 1 machine: bar in them"))
    #expect(try node0.call("STATE", "bar") == .bulk("0"))
    // A malformed file is refused, naming the file and the line.
    try "node nope\n".write(toFile: cluster.mapPath(0), atomically: true, encoding: .utf8)
    try cluster.reload(0, until: "\(cluster.mapPath(0)):1: node id")
    #expect(try node0.call("STATE", "bar") == .bulk("0"))
    #expect(try node0.call("CLUSTER", "SLOTS").values?.count == 4)
  }

  @Test("SUBSCRIBE to another node's machine is MOVED; a slot given away unsubscribes its channels")
  func pubSub() throws {
    let cluster = try ClusterNodes().start()
    let node0 = try cluster.client(0)
    #expect(try node0.call("SPAWN", "counter", "bar") == .simple("OK"))
    let subscriber = try cluster.client(0)
    #expect(
      try subscriber.call("SUBSCRIBE", "foo") == .error("MOVED 12182 \(cluster.address(2))"))
    // One slot per SUBSCRIBE, as Redis's SSUBSCRIBE.
    #expect(
      try subscriber.call("SUBSCRIBE", "bar", "b")
        == .error("CROSSSLOT Keys in request don't hash to the same slot"))
    try subscriber.send(["SUBSCRIBE", "bar", "{bar}later"])
    try subscriber.send(["SUBSCRIBE", "b"])
    for (name, count) in [("bar", 1), ("{bar}later", 2), ("b", 3)] {
      #expect(try subscriber.read() == .array([.bulk("subscribe"), .bulk(name), .integer(count)]))
    }
    #expect(try node0.call("SEND", "bar", "inc").strings == ["0", "1"])
    #expect(try subscriber.read() == .array([.bulk("message"), .bulk("bar"), .bulk("inc 0 1")]))
    // Slot 3300 ("b", no machine) goes to node 1: its subscriber is told, as by UNSUBSCRIBE.
    #expect(try node0.call("CLUSTER", "SETSLOT", "3300", "NODE", cluster.ids[1]) == .simple("OK"))
    #expect(try subscriber.read() == .array([.bulk("unsubscribe"), .bulk("b"), .integer(2)]))
    #expect(try node0.call("SEND", "bar", "inc").strings == ["1", "2"])
    #expect(try subscriber.read() == .array([.bulk("message"), .bulk("bar"), .bulk("inc 1 2")]))
    // Patterns see this node's machines.
    let patterns = try cluster.client(0)
    try patterns.send(["PSUBSCRIBE", "*"])
    _ = try patterns.read()
    #expect(try node0.call("SEND", "bar", "inc").strings == ["2", "3"])
    #expect(
      try patterns.read()
        == .array([.bulk("pmessage"), .bulk("*"), .bulk("bar"), .bulk("inc 2 3")]))
  }

  @Test("a node refuses to start with stored machines in slots the map gives to another node")
  func startRefusals() throws {
    let cluster = try ClusterNodes().start()
    #expect(try cluster.client(0).call("SPAWN", "counter", "bar") == .simple("OK"))
    #expect(cluster.nodes[0].stop() == 0)
    cluster.ranges = [[0...5000], [5001...10922], [10923...16383]]
    try cluster.writeMap(for: 0)
    let refused = try Self.runToEnd(cluster.nodes[0])
    #expect(refused.status != 0)
    #expect(
      refused.output.contains(
        "\(cluster.mapPath(0)): the change takes slot 5061 from this node, which hosts 1 "
          + "machine: bar in them"), "\(refused.output)")
    // The machine is still stored: under a map that gives its slot back, it is there.
    cluster.ranges = ClusterNodes.threeWaySplit
    try cluster.writeMap(for: 0)
    try cluster.nodes[0].start()
    #expect(try cluster.client(0).call("STATE", "bar") == .bulk("0"))
  }

  @Test("a bad map stops start-up with the file and the line")
  func badMap() throws {
    let node = DaemonProcess()
    let path = node.directory + "/cluster.conf"
    node.arguments += ["--cluster-config", path]
    try "node \(String(repeating: "a", count: 40)) 127.0.0.1:1 0-16384\nmyself x\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    let refused = try Self.runToEnd(node)
    #expect(refused.status != 0)
    #expect(refused.output.contains("\(path):1: slot 16384 is outside 0-16383"))
    #expect(refused.output.contains("\(path):2: myself names x, which no node line declares"))
  }

  /// Runs `node`'s daemon in the foreground (under `timeout`: one that starts anyway ends
  /// within seconds) and returns its status and output.
  static func runToEnd(_ node: DaemonProcess) throws -> (status: Int32, output: String) {
    try DaemonProcess.run(
      "/usr/bin/timeout",
      ["-s", "KILL", "10", DaemonProcess.product("millraced")] + node.arguments,
      directory: node.directory)
  }

  @Test("without --cluster-config the cluster commands are refused as by Redis without cluster")
  func notACluster() throws {
    let daemon = try DaemonProcess(["--durability", "none"]).start()
    let client = try daemon.client()
    let disabled = RESPValue.error("ERR This instance has cluster support disabled")
    for words in [
      ["CLUSTER", "INFO"], ["CLUSTER", "SLOTS"], ["CLUSTER", "KEYSLOT", "foo"], ["READONLY"],
      ["READWRITE"], ["ASKING"], ["CLUSTER", "HELP"],
    ] {
      #expect(try client.call(words) == disabled, "\(words)")
    }
    // Hash tags are valid machine names anywhere; nothing is redirected.
    #expect(try client.call("SPAWN", "counter", "pump:{A}") == .simple("OK"))
    #expect(try client.call("SEND", "foo", "inc") == .error("NOMACHINE no machine foo"))
    let info = try #require(try client.call("INFO").string)
    #expect(info.contains("redis_mode:standalone\r\n") && !info.contains("# Cluster"))
  }
}

extension RESPValue {
  /// A map's pairs, as RESP3 sends them or as RESP2's flat array of keys and values.
  fileprivate var pairs: [Pair]? {
    switch self {
    case .map(let pairs): return pairs
    case .array(let values?) where values.count % 2 == 0:
      return stride(from: 0, to: values.count, by: 2).map { Pair(values[$0], values[$0 + 1]) }
    default: return nil
    }
  }

  /// An array's elements.
  fileprivate var values: [RESPValue]? {
    if case .array(let values?) = self { return values }
    return nil
  }

  /// How many elements an array has (nil for anything else).
  fileprivate var arrayCount: Int? { values?.count }
}
