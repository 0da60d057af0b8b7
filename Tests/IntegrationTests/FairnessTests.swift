import Foundation
import MillraceClient
import Testing

/// A client that pipelines thousands of requests cannot hold the daemon's loop: its requests
/// are handed out a slice per loop iteration (`StreamServer.Configuration.requestsPerSlice`),
/// so another client is answered in between; order, completeness and `MULTI`/`EXEC`'s
/// atomicity are kept.
@Suite("Fairness: a pipelining client and a bystander")
struct FairnessTests {
  /// `total_commands_processed` of `INFO stats`, as `redis-cli` (a real client at its
  /// defaults) reads it on a connection of its own.
  static func commandsProcessed(_ daemon: DaemonProcess) throws -> Int? {
    try daemon.redisCLI("INFO", "stats").split(whereSeparator: \.isNewline)
      .first { $0.hasPrefix("total_commands_processed:") }
      .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
  }

  /// A fresh daemon with the counter `c` spawned, and the client that spawned it.
  static func daemonWithCounter() throws -> (DaemonProcess, ControlClient) {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    try client.send(["SPAWN", "counter", "c"])
    #expect(try client.read() == .simple("OK"))
    return (daemon, client)
  }

  @Test("a bystander is answered before the last of 10,000 pipelined requests runs")
  func bystanderBetweenSlices() throws {
    let (daemon, pipeliner) = try Self.daemonWithCounter()
    let before = try #require(try Self.commandsProcessed(daemon))
    let count = 10_000
    // One write: the daemon finds thousands of requests buffered at once.
    try pipeliner.sendRaw((0..<count).flatMap { _ in request(["STATE", "c"]) })
    let atBystander = try #require(try Self.commandsProcessed(daemon))
    // The bystander's INFO ran while the pipeline was still being served: without slices,
    // the whole buffer of requests read in one go runs before anything else is read.
    #expect(atBystander - before < count, "the bystander waited for the whole pipeline")
    var wrong = 0
    for _ in 0..<count where try pipeliner.read() != .bulk("0") { wrong += 1 }
    #expect(wrong == 0)
    #expect(try Self.commandsProcessed(daemon)! >= before + count)
  }

  @Test("MULTI/EXEC of 600 SENDs, longer than a slice, stays atomic for another client")
  func transactionAcrossSlicesStaysAtomic() throws {
    let (daemon, writer) = try Self.daemonWithCounter()
    let reader = try daemon.client()
    let sends = 600
    try writer.sendRaw(
      request(["MULTI"]) + (0..<sends).flatMap { _ in request(["SEND", "c", "inc"]) }
        + request(["EXEC"]))
    // The reader sees the counter before the transaction or after it, never in between.
    var seen: Set<String> = []
    for _ in 0..<200 {
      try reader.send(["STATE", "c"])
      guard case .bulk(let value?) = try reader.read() else { break }
      seen.insert(value)
      if value == "\(sends)" { break }
    }
    #expect(seen.isSubset(of: ["0", "\(sends)"]), "seen \(seen.sorted())")
    #expect(try writer.read() == .simple("OK"))
    for _ in 0..<sends { #expect(try writer.read() == .simple("QUEUED")) }
    guard case .array(let replies?) = try writer.read() else {
      Issue.record("EXEC did not answer an array")
      return
    }
    #expect(replies.count == sends)
    #expect(replies.last?.strings == ["\(sends - 1)", "\(sends)"])
    #expect(daemon.isRunning)
  }

  @Test("a transaction longer than the limit is refused whole, and nothing of it runs")
  func transactionLimit() throws {
    let (daemon, client) = try Self.daemonWithCounter()
    let limit = 100_000  // ControlServer.transactionLimit
    try client.sendRaw(
      request(["MULTI"]) + (0...limit).flatMap { _ in request(["SEND", "c", "inc"]) }
        + request(["EXEC"]))
    #expect(try client.read() == .simple("OK"))
    var queued = 0
    for _ in 0..<limit where try client.read() == .simple("QUEUED") { queued += 1 }
    #expect(queued == limit)
    let refused = try client.read()
    #expect(refused.errorCode == "ERR" && "\(refused)".contains("at most \(limit)"), "\(refused)")
    #expect(try client.read().errorCode == "EXECABORT")
    #expect(try client.call("STATE", "c") == .bulk("0"))
    #expect(daemon.isRunning)
  }
}
