import Foundation
import MillraceClient
import MillraceHost
import Testing

/// Real Redis Cluster clients at their defaults against three real nodes: redis-py's
/// `RedisCluster` (the latest release, in the client matrix's virtual environment) through the
/// scenario `make cluster` runs (scripts/cluster_scenario.py), with small counts, a slot range
/// moving between nodes under its SENDs included, and `redis-cli -c`, which follows `-MOVED`
/// to the node that owns a machine (and `-ASK` during a move).
@Suite("Cluster clients", .hangGuard)
struct ClusterClientTests {
  @Test(
    "redis-py RedisCluster: SENDs while slots move, transactions, redis-cli -c; replies checked",
    arguments: [3, 2])
  func scenario(protocol version: Int) throws {
    let python = try ClusterNodes.requirePython()
    let cluster = try ClusterNodes().start()
    let nodes = cluster.ports.map { "127.0.0.1:\($0)" }.joined(separator: ",")
    let result = try DaemonProcess.run(
      // SIGKILL: the test process's children inherit its blocked SIGTERM.
      "/usr/bin/timeout",
      [
        "-s", "KILL", "90", python, DaemonProcess.repository + "/scripts/cluster_scenario.py",
        "--nodes", nodes,
        "--machines", "96", "--sends", "2000", "--clients", "2", "--pipeline", "8",
        "--cli-sends", "60", "--protocol", "\(version)",
      ])
    #expect(result.status == 0, "\(result.output)")
    let lines = result.output.split(separator: "\n")
    let steps = [
      "connect", "spawn", "placement", "sends", "move", "ask", "moved", "transaction", "redis-cli",
      "states",
    ]
    for step in steps {
      #expect(
        lines.contains { $0.hasPrefix("PASS  \(step) ") }, "no PASS of \(step):\n\(result.output)")
    }
    #expect(!result.output.contains("FAIL"), "\(result.output)")
    #expect(result.output.contains("redis-py 8."), "redis-py is not the latest major release")
    // What the clients left: 96 machines, spread over the three nodes, each on the node that
    // serves its slot now (the others redirect there), some of them moved from their first one.
    var total = 0
    var moved = 0
    for index in 0..<3 {
      let names = try #require(try cluster.client(index).call("LIST").strings)
      #expect(!names.isEmpty, "node \(index) got no machine")
      for name in names {
        let slot = Int(HashSlot.of(name))
        #expect(try cluster.client(index).call("STATE", name).string != nil, "\(name)")
        for other in 0..<3 where other != index {
          #expect(
            try cluster.client(other).call("STATE", name)
              == .error("MOVED \(slot) \(cluster.address(index))"), "\(name) on node \(other)")
        }
        if cluster.owner(of: slot) != index { moved += 1 }
      }
      total += names.count
    }
    #expect(total == 96)
    #expect(moved > 0, "no machine moved")
  }

  @Test("redis-cli -c follows -MOVED to the node that owns the machine")
  func redisCLI() throws {
    let cluster = try ClusterNodes().start()
    // Every request goes to node 0; "foo" is node 2's, "c" node 1's, "bar" node 0's.
    func cli(_ words: String...) throws -> String {
      try DaemonProcess.run(
        "/usr/bin/timeout",
        ["-s", "KILL", "10", "/usr/bin/redis-cli", "-c", "-p", "\(cluster.ports[0])"] + words
      ).output
    }
    for name in ["foo", "c", "bar"] {
      #expect(try cli("SPAWN", "counter", name) == "OK\n", "\(name)")
      #expect(try cli("SEND", name, "inc") == "0\n1\n", "\(name)")
      #expect(try cli("STATE", name) == "1\n", "\(name)")
    }
    #expect(try cluster.client(2).call("STATE", "foo") == .bulk("1"))
    #expect(try cluster.client(1).call("LIST").strings == ["c"])
    // Without -c, redis-cli shows the redirection.
    let plain = try DaemonProcess.run(
      "/usr/bin/timeout",
      ["-s", "KILL", "10", "/usr/bin/redis-cli", "-p", "\(cluster.ports[0])", "STATE", "foo"])
    #expect(plain.output == "MOVED 12182 127.0.0.1:\(cluster.ports[2])\n\n")
    // A session on its stdin follows each redirection and says so.
    let input = "SEND foo inc\nSEND bar inc\nSEND c inc\n"
    let session = try DaemonProcess.run(
      "/bin/sh",
      ["-c", "printf '\(input)' | timeout -s KILL 10 redis-cli -c -p \(cluster.ports[0])"])
    #expect(
      session.output.split(separator: "\n") == [
        "-> Redirected to slot [12182] located at 127.0.0.1:\(cluster.ports[2])", "1", "2",
        "-> Redirected to slot [5061] located at 127.0.0.1:\(cluster.ports[0])", "1", "2",
        "-> Redirected to slot [7365] located at 127.0.0.1:\(cluster.ports[1])", "1", "2",
      ])
  }
}
