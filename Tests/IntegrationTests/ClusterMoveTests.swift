import Foundation
import MillraceClient
import MillraceHost
import Testing

/// Moving machines between two real nodes (issue 26, docs/cluster.md): Redis's procedure
/// (`CLUSTER SETSLOT ... IMPORTING / MIGRATING`, `MIGRATE`, `SETSLOT ... NODE`), what clients
/// see while a slot moves (`-ASK`, `ASKING`, `-TRYAGAIN`), machines arriving with their state,
/// context and timers, and a node killed (`SIGKILL`, at the exact moment `MILLRACED_CRASH_AT`
/// names) in the middle of a move: no acknowledged transition is lost, and the move, retried,
/// leaves each machine on one node.
@Suite("Moving machines between nodes", .hangGuard)
struct ClusterMoveTests {
  /// Node 0 owns 0-8191, node 1 the rest. "b" is in slot 3300 (node 0's), as is every name
  /// under the hash tag `{b}`.
  static let halves: [[ClosedRange<Int>]] = [[0...8191], [8192...16383]]
  static let slot = "3300"

  /// The shipped examples plus `latch` (`arm`: `after 2s` sends `fire`, id `fuse`; `disarm`
  /// cancels it).
  static func machines() throws -> String {
    let directory = NSTemporaryDirectory() + "mr-move-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let examples = DaemonProcess.repository + "/examples/machines"
    for file in try FileManager.default.contentsOfDirectory(atPath: examples) {
      try FileManager.default.copyItem(
        atPath: examples + "/" + file, toPath: directory + "/" + file)
    }
    try """
    {"kind": "latch", "initial": "open", "final": ["fired"], "transitions": [
      {"on": "arm", "from": "open", "to": "armed",
       "effects": [{"after": "2s", "send": "fire", "id": "fuse"}]},
      {"on": "disarm", "from": "armed", "to": "open", "effects": [{"cancel": "fuse"}]},
      {"on": "fire", "from": "armed", "to": "fired"}]}
    """.write(toFile: directory + "/latch.json", atomically: true, encoding: .utf8)
    return directory
  }

  /// Opens slot 3300 for a move from node 0 to node 1, as Redis's tools do: importing on the
  /// target first.
  static func openSlot(_ cluster: ClusterNodes) throws {
    #expect(
      try cluster.client(1).call("CLUSTER", "SETSLOT", slot, "IMPORTING", cluster.ids[0])
        == .simple("OK"))
    #expect(
      try cluster.client(0).call("CLUSTER", "SETSLOT", slot, "MIGRATING", cluster.ids[1])
        == .simple("OK"))
  }

  /// `MIGRATE` from node 0 to node 1 of `names`.
  static func migrate(_ cluster: ClusterNodes, _ names: [String], replace: Bool = false) throws
    -> RESPValue
  {
    try cluster.client(0).call(
      ["MIGRATE", "127.0.0.1", "\(cluster.ports[1])", "", "0", "5000"]
        + (replace ? ["REPLACE"] : []) + ["KEYS"] + names)
  }

  /// Node 1's reply to `words` after `ASKING`.
  static func asking(_ cluster: ClusterNodes, _ words: String...) throws -> RESPValue {
    let client = try cluster.client(1)
    #expect(try client.call("ASKING") == .simple("OK"))
    return try client.call(words)
  }

  /// The two nodes, node `index` set to kill itself at `point`, with counter "b" on node 0
  /// sent `sends` incs, and slot 3300 open for the move.
  static func cluster(crashing index: Int, at point: String, sends: Int) throws -> ClusterNodes {
    let cluster = try ClusterNodes(halves)
    cluster.nodes[index].environment["MILLRACED_CRASH_AT"] = point
    try cluster.start()
    let node0 = try cluster.client(0)
    #expect(try node0.call("SPAWN", "counter", "b") == .simple("OK"))
    for count in 0..<sends {
      #expect(try node0.call("SEND", "b", "inc").strings == ["\(count)", "\(count + 1)"])
    }
    try openSlot(cluster)
    return cluster
  }

  /// Waits (up to 5 s) until node `index` died by itself, then starts it again (without the
  /// crash point).
  static func restartAfterDeath(_ cluster: ClusterNodes, _ index: Int) throws {
    for _ in 0..<100 where cluster.nodes[index].isRunning { usleep(50_000) }
    #expect(!cluster.nodes[index].isRunning, "node \(index) should have killed itself")
    _ = cluster.nodes[index].stop(signal: SIGKILL)
    cluster.nodes[index].environment = [:]
    try cluster.nodes[index].start()
  }

  @Test(
    "a slot moves with its machines' states and contexts; ASK, ASKING, TRYAGAIN meanwhile")
  func moveASlot() throws {
    let cluster = try ClusterNodes(Self.halves, machines: Self.machines()).start()
    let node0 = try cluster.client(0)
    let node1 = try cluster.client(1)
    for (kind, name) in [
      ("counter", "b"), ("login", "{b}login"), ("counter", "{b}stay"),
      ("counter", "{b}two"),
    ] {
      #expect(try node0.call("SPAWN", kind, name) == .simple("OK"))
    }
    #expect(try node0.call("SEND", "b", "inc").strings == ["0", "1"])
    #expect(try node0.call("SEND", "b", "inc").strings == ["1", "2"])
    #expect(try node0.call("SEND", "{b}login", "login", "bob", "1").strings == ["idle", "idle"])
    let login = try node0.call("STATE", "{b}login", "WITHCONTEXT")
    #expect(login.strings?.contains("attempts") == true)
    let listener = try cluster.nodes[0].subscriber(to: "b")
    try Self.openSlot(cluster)
    #expect(try Self.migrate(cluster, ["b", "{b}login", "nosuch"]) == .simple("OK"))
    // A subscriber of a machine that left is told, as by UNSUBSCRIBE.
    #expect(try listener.read() == .array([.bulk("unsubscribe"), .bulk("b"), .integer(0)]))
    // The source serves what it still has, and sends the rest to the target; it kills a
    // machine of the moving slot only once it moved.
    #expect(
      try node0.call("KILL", "{b}stay")
        == .error("TRYAGAIN machine {b}stay's slot is migrating: KILL it once it moved (-ASK then)")
    )
    let ask = RESPValue.error("ASK 3300 \(cluster.address(1))")
    #expect(try node0.call("SEND", "b", "inc") == ask)
    #expect(try node0.call("SPAWN", "counter", "{b}new") == ask)
    #expect(try node0.call("STATE", "{b}stay") == .bulk("0"))
    #expect(
      try node0.call("SUBSCRIBE", "b", "{b}stay")
        == .error("TRYAGAIN Multiple keys request during rehashing of slot"))
    // The target serves the slot only after ASKING.
    #expect(try node1.call("SEND", "b", "inc") == .error("MOVED 3300 \(cluster.address(0))"))
    // So does a subscription: ASKING, then SUBSCRIBE to a machine already moved.
    let follower = try cluster.client(1)
    #expect(try follower.call("ASKING") == .simple("OK"))
    try follower.send(["SUBSCRIBE", "b"])
    #expect(try follower.read() == .array([.bulk("subscribe"), .bulk("b"), .integer(1)]))
    #expect(try Self.asking(cluster, "SEND", "b", "inc").strings == ["2", "3"])
    #expect(try follower.read().strings?.first == "message")
    #expect(try Self.asking(cluster, "STATE", "{b}login", "WITHCONTEXT") == login)
    // ASKING holds for the next request even when it waits behind the connection's SENDs,
    // and ends with it, with an EXEC or DISCARD outside a transaction, and with RESET.
    try node1.send(["ASKING"])
    try node1.send(["SEND", "b", "inc"])
    try node1.send(["ASKING"])
    try node1.send(["STATE", "b"])
    try node1.send(["STATE", "b"])
    for expected: RESPValue in [
      .simple("OK"), .array([.bulk("3"), .bulk("4")]), .simple("OK"), .bulk("4"),
      .error("MOVED 3300 \(cluster.address(0))"),
    ] {
      #expect(try node1.readReply() == expected)
    }
    for ending in [["EXEC"], ["DISCARD"], ["RESET"]] {
      #expect(try node1.call("ASKING") == .simple("OK"))
      _ = try node1.call(ending)
      #expect(
        try node1.call("STATE", "b") == .error("MOVED 3300 \(cluster.address(0))"), "\(ending)")
    }
    // A transaction runs whole on one node or not at all, routed as Redis routes one: on the
    // source, with some of its machines moved since they were queued, -TRYAGAIN; with all of
    // them moved, -ASK.
    try node0.send(["MULTI"])
    try node0.send(["SEND", "{b}stay", "inc"])
    try node0.send(["SEND", "{b}two", "inc"])
    for expected: RESPValue in [.simple("OK"), .simple("QUEUED"), .simple("QUEUED")] {
      #expect(try node0.readReply() == expected)
    }
    #expect(try Self.migrate(cluster, ["{b}two"]) == .simple("OK"))
    #expect(
      try node0.call("EXEC") == .error("TRYAGAIN Multiple keys request during rehashing of slot"))
    try node0.send(["MULTI"])
    try node0.send(["SEND", "{b}stay", "inc"])
    #expect(try node0.readReply() == .simple("OK"))
    #expect(try node0.readReply() == .simple("QUEUED"))
    #expect(try Self.migrate(cluster, ["{b}stay"]) == .simple("OK"))
    #expect(try node0.call("EXEC") == ask)
    // On the target, ASKING holds for a whole transaction, as Redis's, and ends with it.
    try node1.send(["ASKING"])
    try node1.send(["MULTI"])
    try node1.send(["SEND", "{b}stay", "inc"])
    try node1.send(["SEND", "{b}two", "inc"])
    try node1.send(["EXEC"])
    for expected: RESPValue in [.simple("OK"), .simple("OK"), .simple("QUEUED"), .simple("QUEUED")]
    {
      #expect(try node1.readReply() == expected)
    }
    let executed = try node1.readReply()
    #expect(executed.elements?.count == 2, "\(executed)")
    #expect(try node1.call("STATE", "{b}stay") == .error("MOVED 3300 \(cluster.address(0))"))
    let stay = try Self.asking(cluster, "STATE", "{b}stay")
    #expect(stay == .bulk("1"), "\(stay)")
    // The slot is empty on node 0: it is given to node 1, on both.
    #expect(try node0.call("CLUSTER", "COUNTKEYSINSLOT", Self.slot) == .integer(0))
    for client in [node1, node0] {
      #expect(
        try client.call("CLUSTER", "SETSLOT", Self.slot, "NODE", cluster.ids[1]) == .simple("OK"))
    }
    #expect(try node0.call("SEND", "b", "inc") == .error("MOVED 3300 \(cluster.address(1))"))
    #expect(try node1.call("SEND", "b", "inc").strings == ["4", "5"])
    // Both map files say so, and a restart of both nodes finds every machine where it was.
    for index in 0...1 {
      let map = try String(contentsOfFile: cluster.mapPath(index), encoding: .utf8)
      #expect(map.contains("node \(cluster.ids[1]) \(cluster.address(1)) 3300 8192-16383"))
      #expect(!map.contains("migrating") && !map.contains("importing"))
      #expect(cluster.nodes[index].stop() == 0)
      try cluster.nodes[index].start()
    }
    #expect(try cluster.client(0).call("LIST").strings == [])
    #expect(
      try cluster.client(1).call("LIST").strings
        == ["b", "{b}login", "{b}stay", "{b}two"])
    #expect(try cluster.client(1).call("STATE", "b") == .bulk("5"))
  }

  @Test("a moved timer fires at its first deadline on an idle target, and cancel still finds it")
  func movedTimers() throws {
    let cluster = try ClusterNodes(Self.halves, machines: Self.machines()).start()
    let node0 = try cluster.client(0)
    // "{c}..." is in slot 7365, node 0's.
    for name in ["{c}fires", "{c}cancelled"] {
      #expect(try node0.call("SPAWN", "latch", name) == .simple("OK"))
      #expect(try node0.call("SEND", name, "arm").strings == ["open", "armed"])
    }
    let armed = Date()
    // Moved 1 s after arming: the timers have 1 s left, not 2.
    usleep(1_000_000)
    let node1 = try cluster.client(1)
    #expect(
      try node1.call("CLUSTER", "SETSLOT", "7365", "IMPORTING", cluster.ids[0]) == .simple("OK"))
    #expect(
      try node0.call("CLUSTER", "SETSLOT", "7365", "MIGRATING", cluster.ids[1]) == .simple("OK"))
    #expect(try Self.migrate(cluster, ["{c}fires", "{c}cancelled"]) == .simple("OK"))
    for client in [node1, node0] {
      #expect(
        try client.call("CLUSTER", "SETSLOT", "7365", "NODE", cluster.ids[1]) == .simple("OK"))
    }
    #expect(try node1.call("SEND", "{c}cancelled", "disarm").strings == ["armed", "open"])
    // Nothing talks to node 1 until the timer's message: its loop must wake for the deadline.
    let listener = try cluster.nodes[1].subscriber(to: "{c}fires")
    let message = try listener.read()
    let elapsed = Date().timeIntervalSince(armed)
    #expect(message.strings?.contains { $0.contains("fired") } == true, "\(message)")
    #expect(elapsed >= 1.9 && elapsed < 2.6, "fired \(elapsed) s after arming (due at 2 s)")
    usleep(300_000)
    #expect(try node1.call("STATE", "{c}cancelled") == .bulk("open"))
    #expect(try node1.call("STATE", "{c}fires") == .bulk("fired"))
  }

  @Test("the source killed after the target kept the machines: nothing lost, the retry moves them")
  func sourceKilledMidMove() throws {
    let cluster = try Self.cluster(crashing: 0, at: "migrate-before-delete", sends: 3)
    #expect(throws: ControlClient.Failure.self) { try Self.migrate(cluster, ["b"]) }
    try Self.restartAfterDeath(cluster, 0)
    // Restarted, the source still has the machine (and the slot still migrating, from its map
    // file), so it serves it: the target's copy is reached by no client.
    let source = try cluster.client(0)
    #expect(try source.call("SEND", "b", "inc").strings == ["3", "4"])
    #expect(try Self.asking(cluster, "STATE", "b") == .bulk("3"))
    // The move again: without REPLACE the target refuses its stale copy's name, and the source
    // keeps the machine; with REPLACE, the source's machine replaces it.
    let refused = try Self.migrate(cluster, ["b"])
    #expect(refused.errorCode == "ERR")
    #expect(
      refused
        == .error("ERR Target instance replied with error: BUSYKEY Target key name already exists.")
    )
    #expect(try source.call("STATE", "b") == .bulk("4"))
    #expect(try Self.migrate(cluster, ["b"], replace: true) == .simple("OK"))
    #expect(try source.call("LIST").strings == [])
    #expect(try Self.asking(cluster, "SEND", "b", "inc").strings == ["4", "5"])
  }

  @Test(
    "the target killed after keeping a machine, before replying: the source keeps it, the retry moves it"
  )
  func targetKilledMidMove() throws {
    let cluster = try Self.cluster(crashing: 1, at: "restore-after-commit", sends: 1)
    let node0 = try cluster.client(0)
    #expect(
      try Self.migrate(cluster, ["b"])
        == .error("IOERR error or timeout reading to target instance"))
    #expect(try node0.call("SEND", "b", "inc").strings == ["1", "2"])
    // Restarted, the target holds a machine in a slot it imports: its map file says so, and
    // it starts.
    try Self.restartAfterDeath(cluster, 1)
    #expect(try Self.asking(cluster, "STATE", "b") == .bulk("1"))
    #expect(try Self.migrate(cluster, ["b"], replace: true) == .simple("OK"))
    #expect(try node0.call("LIST").strings == [])
    #expect(try Self.asking(cluster, "STATE", "b") == .bulk("2"))
    // Killed again (SIGKILL) after the move, both nodes come back with the machine on one.
    for index in 0...1 {
      _ = cluster.nodes[index].stop(signal: SIGKILL)
      try cluster.nodes[index].start()
    }
    #expect(try cluster.client(0).call("LIST").strings == [])
    #expect(try Self.asking(cluster, "SEND", "b", "inc").strings == ["2", "3"])
  }

  @Test("redis-cli --cluster reshard moves slots and their machines, unchanged")
  func redisCLIReshard() throws {
    let cluster = try ClusterNodes(Self.halves).start()
    let node0 = try cluster.client(0)
    // Machines in slots 0-99 of node 0 (names found by their slots), and one state each.
    var names: [String] = []
    var index = 0
    while names.count < 20 {
      let name = "m\(index)"
      index += 1
      guard HashSlot.of(name) < 100 else { continue }
      #expect(try node0.call("SPAWN", "counter", name) == .simple("OK"))
      #expect(try node0.call("SEND", name, "inc").strings == ["0", "1"])
      names.append(name)
    }
    let result = try DaemonProcess.run(
      "/usr/bin/timeout",
      [
        "-s", "KILL", "60", "/usr/bin/redis-cli", "--cluster", "reshard", cluster.address(0),
        "--cluster-from", cluster.ids[0], "--cluster-to", cluster.ids[1], "--cluster-slots", "100",
        "--cluster-yes",
      ])
    #expect(result.status == 0, "\(result.output)")
    #expect(!result.output.contains("ERR"), "\(result.output)")
    #expect(
      result.output.contains("Moving slot 99 from \(cluster.address(0)) to \(cluster.address(1))"))
    #expect(try node0.call("DBSIZE") == .integer(0))
    let node1 = try cluster.client(1)
    #expect(try node1.call("DBSIZE") == .integer(20))
    for name in names {
      #expect(try node1.call("SEND", name, "inc").strings == ["1", "2"])
      #expect(try node0.call("STATE", name).errorCode == "MOVED")
    }
    let check = try DaemonProcess.run(
      "/usr/bin/timeout",
      ["-s", "KILL", "30", "/usr/bin/redis-cli", "--cluster", "check", cluster.address(1)])
    #expect(
      check.output.contains("[OK] All nodes agree about slots configuration."), "\(check.output)")
    #expect(check.output.contains("[OK] All 16384 slots covered."), "\(check.output)")
    #expect(
      !check.output.contains("[WARNING]") && !check.output.contains("[ERR]"), "\(check.output)")
  }

  @Test("MIGRATE's refusals: COPY, no machine, an unreachable target, a bad KEYS form")
  func migrateRefusals() throws {
    let cluster = try ClusterNodes(Self.halves).start()
    let node0 = try cluster.client(0)
    #expect(try node0.call("SPAWN", "counter", "b") == .simple("OK"))
    let port = "\(cluster.ports[1])"
    #expect(
      try node0.call("MIGRATE", "127.0.0.1", port, "b", "0", "1000", "COPY")
        == .error(
          "ERR MIGRATE COPY is refused: a machine is moved, never copied (it would run twice)"))
    #expect(
      try node0.call("MIGRATE", "127.0.0.1", port, "", "0", "1000", "KEYS", "x") == .simple("NOKEY")
    )
    #expect(
      try node0.call("MIGRATE", "127.0.0.1", port, "b", "0", "1000", "KEYS", "b")
        == .error(
          "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"))
    #expect(
      try node0.call("MIGRATE", "127.0.0.1", port, "b", "1", "1000")
        == .error("ERR millraced has one database: MIGRATE to database 0"))
    let closed = try DaemonProcess.freePort()
    #expect(
      try node0.call("MIGRATE", "127.0.0.1", "\(closed)", "b", "0", "1000")
        == .error("IOERR error or timeout connecting to the client"))
    #expect(try node0.call("STATE", "b") == .bulk("0"))
  }

  @Test("DUMP and RESTORE with redis-py: a machine copied whole, durable, and bad payloads refused")
  func dumpAndRestore() throws {
    let python = try ClusterNodes.requirePython()
    let daemon = try DaemonProcess().start()
    let script = """
      import sys, redis
      r = redis.Redis(unix_socket_path=sys.argv[1], decode_responses=False)
      assert r.execute_command("SPAWN", "door", "d") == b"OK"
      assert r.execute_command("SEND", "d", "open") == [b"closed", b"opened"]
      assert r.dump("nosuch") is None
      payload = r.dump("d")
      def refused(*args):
          try:
              r.execute_command(*args)
          except redis.ResponseError as error:
              return str(error)
          raise AssertionError(f"{args[:2]} was not refused")
      busy = refused("RESTORE", "d", 0, payload)
      assert busy == "BUSYKEY Target key name already exists.", busy
      assert r.restore("d2", 0, payload) == b"OK"
      assert r.execute_command("STATE", "d2") == b"opened"
      assert r.execute_command("SEND", "d2", "close") == [b"opened", b"closed"]
      damaged = payload[:-1] + bytes([payload[-1] ^ 1])
      assert refused("RESTORE", "x", 0, damaged) == "DUMP payload version or checksum are wrong"
      assert refused("RESTORE", "x", 0, b"junk") == "DUMP payload version or checksum are wrong"
      assert refused("RESTORE", "x", 5, payload).startswith("Invalid TTL value")
      assert refused("RESTORE", "x", 0, payload, "BOGUS") == "syntax error"
      assert r.execute_command("SEND", "d", "close") == [b"opened", b"closed"]
      assert r.restore("d", 0, payload, replace=True) == b"OK"
      assert r.execute_command("STATE", "d") == b"opened"
      print("ok")
      """
    let result = try DaemonProcess.run(
      "/usr/bin/timeout", ["-s", "KILL", "30", python, "-c", script, daemon.socketPath])
    #expect(result.output.hasSuffix("ok\n"), "\(result.output)")
    // Restored machines are stored as any other.
    #expect(daemon.stop() == 0)
    try daemon.start()
    let client = try daemon.client()
    #expect(try client.call("STATE", "d2") == .bulk("closed"))
    #expect(try client.call("STATE", "d") == .bulk("opened"))
  }
}
