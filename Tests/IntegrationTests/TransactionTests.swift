import Foundation
import MillraceClient
import Testing

/// `MULTI` / `EXEC` / `DISCARD` against the real daemon: queued commands run in one go, see
/// each other's effects, let nothing of another client in between, and commit together.
@Suite("Transactions")
struct TransactionTests {
  @Test("EXEC runs the queued commands in order; a rejected SEND is an error element")
  func exec() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    #expect(try client.call("MULTI") == .simple("OK"))
    for words in [
      ["SPAWN", "counter", "c"], ["SEND", "c", "inc"], ["SEND", "c", "inc"], ["STATE", "c"],
      ["SEND", "c", "add:-5"], ["SEND", "c", "dec"],
    ] {
      #expect(try client.call(words) == .simple("QUEUED"), "\(words)")
    }
    let reply = try client.call("EXEC")
    guard case .array(let elements?) = reply, elements.count == 6 else {
      Issue.record("EXEC answered \(reply)")
      return
    }
    #expect(elements[0] == .simple("OK"))
    #expect(elements[1].strings == ["0", "1"])
    #expect(elements[2].strings == ["1", "2"])
    #expect(elements[3] == .bulk("2"))
    #expect(elements[4] == .error("REJECTED add:-5 in 2"))
    #expect(elements[5].strings == ["2", "1"])
    #expect(try client.call("STATE", "c") == .bulk("1"))
  }

  @Test("a command refused while queueing aborts the EXEC and nothing runs")
  func execAbort() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "counter", "c")
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "c", "inc") == .simple("QUEUED"))
    #expect(try client.call("FLY").errorCode == "ERR")
    #expect(
      try client.call("SEND", "c") == .error("ERR wrong number of arguments for 'send' command"))
    #expect(
      try client.call("EXEC")
        == .error("EXECABORT Transaction discarded because of previous errors."))
    #expect(try client.call("STATE", "c") == .bulk("0"))
    #expect(try client.call("MULTI") == .simple("OK"))
    #expect(try client.call("SEND", "c", "inc") == .simple("QUEUED"))
    #expect(try client.call("DISCARD") == .simple("OK"))
    #expect(try client.call("STATE", "c") == .bulk("0"))
    #expect(try client.call("EXEC") == .error("ERR EXEC without MULTI"))
    #expect(try client.call("DISCARD") == .error("ERR DISCARD without MULTI"))
    #expect(try client.call("WATCH", "c").errorCode == "ERR")
    _ = try client.call("MULTI")
    #expect(try client.call("MULTI") == .error("ERR MULTI calls can not be nested"))
    #expect(try client.call("EXEC") == .array([]))
  }

  @Test("no other client's SEND comes between a transaction's SENDs", .hangGuard)
  func isolation() throws {
    let daemon = try DaemonProcess().start()
    let setup = try daemon.client()
    _ = try setup.call("SPAWN", "counter", "c")
    let transaction = try daemon.client()
    let other = try daemon.client()
    for round in 0..<20 {
      var multi = request(["MULTI"])
      for _ in 0..<50 { multi += request(["SEND", "c", "inc"]) }
      multi += request(["EXEC"])
      var others: [UInt8] = []
      for _ in 0..<50 { others += request(["SEND", "c", "inc"]) }
      // Both pipelines in flight at once: the daemon reads them in whatever order.
      try other.sendRaw(others)
      try transaction.sendRaw(multi)
      for _ in 0..<51 { _ = try transaction.read() }
      let reply = try transaction.read()
      for _ in 0..<50 { _ = try other.read() }
      guard case .array(let elements?) = reply, elements.count == 50 else {
        Issue.record("round \(round): EXEC answered \(reply)")
        return
      }
      let steps = elements.compactMap { $0.strings.flatMap { $0.count == 2 ? Int($0[0]) : nil } }
      #expect(steps.count == 50)
      #expect(zip(steps, steps.dropFirst()).allSatisfy { $1 == $0 + 1 }, "round \(round): \(steps)")
    }
    #expect(try setup.call("STATE", "c") == .bulk("2000"))
  }

  @Test("a transaction's changes are one commit, acknowledged after it, and survive kill -9")
  func oneCommit() throws {
    let daemon = try DaemonProcess().start()
    let client = try daemon.client()
    _ = try client.call("SPAWN", "counter", "a")
    _ = try client.call("SPAWN", "counter", "b")
    let before = try daemon.stats(on: client)["commits"].flatMap(Int.init) ?? -1
    var batch = request(["MULTI"])
    for _ in 0..<10 { batch += request(["SEND", "a", "inc"]) + request(["SEND", "b", "inc"]) }
    batch += request(["SPAWN", "toggle", "t"]) + request(["KILL", "b"]) + request(["EXEC"])
    try client.sendRaw(batch)
    for _ in 0..<23 { _ = try client.read() }
    guard case .array(let elements?) = try client.read() else {
      Issue.record("no EXEC array")
      return
    }
    #expect(elements.count == 22)
    #expect(try daemon.stats(on: client)["commits"].flatMap(Int.init) == before + 1)
    daemon.stop(signal: SIGKILL)
    try daemon.start()
    let after = try daemon.client()
    #expect(try after.call("STATE", "a") == .bulk("10"))
    #expect(try after.call("STATE", "t") == .bulk("off"))
    #expect(try after.call("STATE", "b").errorCode == "NOMACHINE")
  }
}
