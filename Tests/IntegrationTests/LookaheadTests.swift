import Foundation
import MillraceClient
import Testing

/// With 65,536 machines or more, a connection decodes pipelined requests ahead of their turn
/// and the daemon warms the cache for the SENDs among them (`MachineHost.prefetchSends`): every
/// request still runs once, in order, with the reply it has without the lookahead.
@Suite("Pipelined requests decoded ahead at 70,000 machines", .hangGuard)
struct LookaheadTests {
  /// The machines spawned: `toggle` machines `t0` ... `t69999`.
  static let machines = 70_000

  /// A daemon started with `arguments`, holding `machines` machines, and the client that
  /// spawned them (each spawn checked).
  static func daemonWithMachines(_ arguments: [String]) throws -> (DaemonProcess, ControlClient) {
    let daemon = try DaemonProcess(arguments).start()
    let client = try daemon.client()
    try client.sendRaw((0..<machines).flatMap { request(["SPAWN", "toggle", "t\($0)"]) })
    var refused = 0
    for _ in 0..<machines where try client.read() != .simple("OK") { refused += 1 }
    #expect(refused == 0)
    return (daemon, client)
  }

  @Test("SENDs, malformed SENDs and other requests in one pipeline all run once, in order")
  func pipelineAtScale() throws {
    let (daemon, client) = try Self.daemonWithMachines(["--durability", "none"])

    // A pipeline of SENDs to random machines with, between them, requests the lookahead
    // must leave alone: a SEND without its input, one to no machine, lower-case, and others.
    var generator = SystemRandomNumberGenerator()
    var flips = [Int](repeating: 0, count: Self.machines)
    var pipeline: [UInt8] = []
    var expected: [(String, isError: Bool)] = []
    for index in 0..<3_000 {
      let machine = Int.random(in: 0..<Self.machines, using: &generator)
      switch index % 10 {
      case 3:
        pipeline += request(["SEND", "t\(machine)"])
        expected.append(("SEND without an input", true))
      case 5:
        pipeline += request(["SEND", "nobody\(index)", "flip"])
        expected.append(("SEND to no machine", true))
      case 7:
        pipeline += request(["PING"])
        expected.append(("PING", false))
      default:
        pipeline += request([index % 2 == 0 ? "SEND" : "send", "t\(machine)", "flip"])
        flips[machine] += 1
        expected.append(("SEND t\(machine) flip", false))
      }
    }
    try client.sendRaw(pipeline)
    var wrong: [String] = []
    for (what, isError) in expected {
      let reply = try client.read()
      if case .error = reply {
        if !isError { wrong.append("\(what): \(reply)") }
      } else if isError {
        wrong.append("\(what): \(reply)")
      }
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    // Each machine flipped as often as it was sent a flip: once per SEND.
    let touched = flips.indices.filter { flips[$0] > 0 }
    try client.sendRaw(touched.flatMap { request(["STATE", "t\($0)"]) })
    var states = 0
    for machine in touched {
      let state = flips[machine].isMultiple(of: 2) ? "off" : "on"
      if try client.read() == .bulk(state) { states += 1 }
    }
    #expect(states == touched.count)
  }

  @Test("redis-py at its defaults pipelines SENDs at 70,000 machines, and redis-cli reads them")
  func realClientsAtScale() throws {
    let python = try ClusterNodes.requirePython()
    let (daemon, _) = try Self.daemonWithMachines([])
    // redis-py as a user would write it (RESP3, its default): a pipeline of 5,000 SENDs to
    // random machines, each reply checked, then every touched machine's state read back.
    let script = """
      import random, sys, redis
      r = redis.Redis(unix_socket_path=sys.argv[1], decode_responses=True)
      flips = {}
      pipe = r.pipeline(transaction=False)
      for _ in range(5000):
          m = random.randrange(70000)
          flips[m] = flips.get(m, 0) + 1
          pipe.execute_command("SEND", f"t{m}", "flip")
      replies = pipe.execute()
      bad = [x for x in replies if not (isinstance(x, list) and len(x) == 2)]
      print("replies", len(replies), "bad", len(bad), bad[:3])
      pipe = r.pipeline(transaction=False)
      for m in flips:
          pipe.execute_command("STATE", f"t{m}")
      states = pipe.execute()
      wrong = [m for m, s in zip(flips, states) if s != ("on" if flips[m] % 2 else "off")]
      print("states", len(states), "wrong", len(wrong))
      print("last", min(flips), "on" if flips[min(flips)] % 2 else "off")
      """
    let result = try DaemonProcess.run(
      "/usr/bin/timeout", ["-s", "KILL", "90", python, "-c", script, daemon.socketPath])
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains("replies 5000 bad 0 []"), "\(result.output)")
    #expect(result.output.contains("wrong 0"), "\(result.output)")
    // redis-cli, one request at a time, on a machine redis-py flipped.
    let last = result.output.split(separator: "\n").first { $0.hasPrefix("last ") }?
      .split(separator: " ")
    let machine = try #require(last.map { "t\($0[1])" }, "\(result.output)")
    let state = try #require(last.map { String($0[2]) })
    #expect(try daemon.redisCLI("STATE", machine) == state + "\n")
    let flipped = try daemon.redisCLI("SEND", machine, "flip")
    #expect(flipped.split(separator: "\n").count == 2, "\(flipped)")
    #expect(try daemon.redisCLI("STATE", machine) == (state == "on" ? "off\n" : "on\n"))
  }

  @Test("hiredis at its defaults pipelines SENDs at 70,000 machines")
  func hiredisAtScale() throws {
    // Built by `make clients` (`make test` builds it before the tests).
    let client = DaemonProcess.repository + "/.build/clients/hiredis_client"
    try #require(
      FileManager.default.isExecutableFile(atPath: client), "no \(client): make clients builds it")
    let (daemon, _) = try Self.daemonWithMachines([])
    let result = try DaemonProcess.run(
      "/usr/bin/timeout",
      ["-s", "KILL", "90", client, daemon.socketPath, "--scale", "\(Self.machines)", "5000"])
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains("PASS  hiredis"), "\(result.output)")
    #expect(result.output.contains("scale 5000 SENDs"), "\(result.output)")
  }
}
