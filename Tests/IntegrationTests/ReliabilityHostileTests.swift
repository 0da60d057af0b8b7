import Foundation
import MillraceClient
import Testing

/// Hostile clients are limited or cut off while the others keep their latency (issue 7,
/// docs/reliability.md). Complements HostileClientTests (garbage, 1 MiB line, vanishing client,
/// subscriber that never reads). Latency bounds are generous for a shared CI machine; the
/// measured figures are printed.
@Suite("Reliability: hostile clients", .serialized)
struct ReliabilityHostileTests {
  /// Checks the probe's round trips: PING stayed fast while the hostile clients ran.
  func expectLowLatency(
    _ probe: LatencyProbe, _ what: String, minimumSamples: Int = 20,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let (samples, failures) = probe.stop()
    let p50 = milliseconds(samples, 0.5)
    let p99 = milliseconds(samples, 0.99)
    print("\(what): bystander PING p50 \(p50) ms, p99 \(p99) ms over \(samples.count) pings")
    #expect(failures == [], sourceLocation: sourceLocation)
    #expect(samples.count >= minimumSamples, sourceLocation: sourceLocation)
    #expect(p50 < 20 * sanitizerSlowdown, "p50 \(p50) ms", sourceLocation: sourceLocation)
    #expect(p99 < 250 * sanitizerSlowdown, "p99 \(p99) ms", sourceLocation: sourceLocation)
  }

  @Test("20 clients sending frames byte by byte do not slow the others down")
  func slowClients() throws {
    let daemon = try DaemonProcess().start()
    let setup = try daemon.client()
    for index in 0..<20 { _ = try setup.call("SPAWN", "counter", "slow\(index)") }
    let probe = LatencyProbe(socketPath: daemon.socketPath)
    let failures = Failures()
    let group = DispatchGroup()
    let socketPath = daemon.socketPath
    for index in 0..<20 {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        do {
          let client = try ControlClient(address: socketPath, timeoutSeconds: 20)
          for byte in request(["SEND", "slow\(index)", "inc"]) {
            try client.sendRaw([byte])
            usleep(20_000)
          }
          let reply = try client.read()
          if reply.strings != ["0", "1"] { failures.add("slow\(index): \(reply)") }
        } catch {
          failures.add("slow\(index): \(error)")
        }
      }
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    #expect(failures.all == [])
    expectLowLatency(probe, "byte-by-byte clients")
    #expect(try setup.call("STATE", "slow19") == .bulk("1"))
  }

  @Test("a 100 MiB frame is cut off early with bounded memory", arguments: ["bulk", "inline"])
  func hundredMebibyteFrame(form: String) throws {
    let daemon = try DaemonProcess().start()
    let before = daemon.residentKiB
    let probe = LatencyProbe(socketPath: daemon.socketPath)
    let client = try RawSocket(path: daemon.socketPath)
    let total = 100 << 20
    var sent = 0
    if form == "bulk" {
      // The header announces 100 MiB: refused at once, before any of the data.
      sent += client.send(Array("*3\r\n$4\r\nSEND\r\n$1\r\nc\r\n$\(total)\r\n".utf8))
    }
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
    while sent < total {
      let accepted = client.send(chunk)
      sent += accepted
      if accepted < chunk.count { break }
    }
    let reply = String(decoding: client.readAll(), as: UTF8.self)
    let after = daemon.residentKiB
    print(
      "100 MiB \(form) frame: cut off after \(sent >> 10) KiB sent; daemon RSS \(before) -> "
        + "\(after) KiB")
    #expect(reply.hasPrefix("-TOOLONG "))
    #expect(sent < 16 << 20, "the daemon took \(sent) bytes before cutting the client off")
    if !underSanitizer {
      #expect(after - before < 16 << 10, "RSS grew from \(before) to \(after) KiB")
    }
    // The cut-off takes milliseconds: the probe may get a single round trip in.
    expectLowLatency(probe, "100 MiB \(form) frame", minimumSamples: 1)
    #expect(daemon.isRunning)
  }

  @Test("a client opening and dropping connections in a tight loop does not hurt the others")
  func connectionChurn() throws {
    let daemon = try DaemonProcess().start()
    let bystander = try daemon.client()
    _ = try bystander.call("SPAWN", "counter", "steady")
    let descriptorsBefore = daemon.openDescriptors
    let probe = LatencyProbe(socketPath: daemon.socketPath)
    let socketPath = daemon.socketPath
    let deadline = Date().addingTimeInterval(2)
    var cycles = 0
    var refused = 0
    // Three ways to drop: at once, mid-frame, and after a request without reading the reply.
    let partial = Array(request(["SEND", "steady", "inc"]).prefix(9))
    let unread = request(["PING"])
    while Date() < deadline {
      do {
        let socket = try RawSocket(path: socketPath, timeoutSeconds: 2)
        switch cycles % 3 {
        case 1: socket.send(partial)
        case 2: socket.send(unread)
        default: break
        }
      } catch {
        refused += 1
      }
      cycles += 1
      if cycles % 200 == 0 {
        #expect(try bystander.call("SEND", "steady", "inc").strings?.count == 2)
      }
    }
    expectLowLatency(probe, "connection churn (\(cycles) connections in 2 s)")
    print("connection churn: \(cycles) connections opened and dropped, \(refused) refused")
    #expect(cycles > 500)
    #expect(refused == 0)
    #expect(daemon.isRunning)
    #expect(try daemon.eventually { try daemon.stats()["connected_clients"] == "2" })
    #expect(try daemon.eventually { daemon.openDescriptors <= descriptorsBefore + 2 })
    #expect(try bystander.call("STATE", "steady") == .bulk("\(cycles / 200)"))
  }

  /// HostileClientTests.slowSubscriber shows the cut-off; this adds what the others see
  /// meanwhile and what the daemon's memory does, with the default 4 MiB limit.
  @Test("a subscriber that never reads is cut off at its buffer limit; memory and latency hold")
  func subscriberThatNeverReads() throws {
    let daemon = try DaemonProcess().start()
    let subscriber = try RawSocket(path: daemon.socketPath)
    subscriber.send(request(["PSUBSCRIBE", "*"]))
    let driver = try daemon.client()
    _ = try driver.call("SPAWN", "toggle", "t")
    #expect(try daemon.eventually { try daemon.stats(on: driver)["subscriptions"] == "1" })
    let before = daemon.residentKiB
    let probe = LatencyProbe(socketPath: daemon.socketPath)
    var peak = before
    var batch: [UInt8] = []
    for _ in 0..<1_000 { batch += request(["SEND", "t", "flip"]) }
    // Each flip publishes ~40 bytes: 200,000 flips are ~8 MiB, twice the limit.
    for _ in 0..<200 {
      try driver.sendRaw(batch)
      for _ in 0..<1_000 { _ = try driver.read() }
      peak = max(peak, daemon.residentKiB)
    }
    expectLowLatency(probe, "a subscriber that never reads")
    print("never-reading subscriber: daemon RSS \(before) KiB, peak \(peak) KiB")
    #expect(try daemon.stats(on: driver)["subscriptions"] == "0")
    if !underSanitizer {
      #expect(peak - before < 24 << 10, "RSS \(before) -> \(peak) KiB")
    }
  }
}
