import Foundation
import MillraceClient
import Testing

/// The short form of `scripts/crash.sh` (docs/reliability.md): clients drive SENDs to their
/// counters, the daemon is killed with SIGKILL at a random moment and restarted; every
/// acknowledged transition is restored (acknowledged <= state <= sent) and a login whose
/// timer was pending at the kill reaches loggedIn after the restart.
@Suite("Reliability: kill -9 rounds")
struct ReliabilityCrashTests {
  /// One client pipelining `window` SENDs at a time until the daemon dies.
  final class Driver: @unchecked Sendable {
    let name: String
    private let lock = NSLock()
    private var sentCount = 0
    private var acknowledgedCount = 0
    private var problem: String?
    let finished = DispatchSemaphore(value: 0)

    init(socketPath: String, name: String, window: Int = 32) {
      self.name = name
      let ready = DispatchSemaphore(value: 0)
      Thread.detachNewThread { [self] in
        defer { finished.signal() }
        guard let client = try? ControlClient(address: socketPath, timeoutSeconds: 10) else {
          lock.withLock { problem = "cannot connect" }
          ready.signal()
          return
        }
        ready.signal()
        let batch = Array(repeating: request(["SEND", name, "inc"]), count: window).flatMap {
          $0
        }
        do {
          while true {
            lock.withLock { sentCount += window }  // counted before writing: an upper bound
            try client.sendRaw(batch)
            for _ in 0..<window {
              let reply = try client.read()
              let step = lock.withLock { acknowledgedCount }
              guard reply.strings == ["\(step)", "\(step + 1)"] else {
                lock.withLock { problem = "reply \(step): \(reply)" }
                return
              }
              lock.withLock { acknowledgedCount += 1 }
            }
          }
        } catch {
          // The daemon was killed.
        }
      }
      ready.wait()
    }

    var figures: (sent: Int, acknowledged: Int, problem: String?) {
      lock.withLock { (sentCount, acknowledgedCount, problem) }
    }
  }

  @Test(
    "3 kill -9 rounds lose no acknowledged transition and keep pending timers",
    arguments: ["batched", "strict"])
  func killNineRounds(durability: String) throws {
    let daemon = try DaemonProcess(["--durability", durability]).start()
    var kept: [String: Int] = [:]
    var lost = 0
    var acknowledged = 0
    for round in 1...3 {
      let control = try daemon.client()
      let names = (0..<4).map { "r\(round)c\($0)" }
      for name in names { #expect(try control.call("SPAWN", "counter", name) == .simple("OK")) }
      #expect(try control.call("SPAWN", "auth", "r\(round)auth") == .simple("OK"))
      let drivers = names.map { Driver(socketPath: daemon.socketPath, name: $0) }
      // loginOK is due 1 s after this acknowledgement: the kill comes before it.
      #expect(
        try control.call("SEND", "r\(round)auth", "login").strings == ["loggedOut", "loggingIn"])
      usleep(useconds_t.random(in: 100_000...600_000))
      daemon.stop(signal: SIGKILL)
      for driver in drivers {
        #expect(driver.finished.wait(timeout: .now() + 30) == .success)
      }
      try daemon.start()
      let check = try daemon.client()
      for driver in drivers {
        let (sent, acked, problem) = driver.figures
        #expect(problem == nil, "\(driver.name): \(problem ?? "")")
        guard case .bulk(let text?) = try check.call("STATE", driver.name), let value = Int(text)
        else {
          Issue.record("\(driver.name) was not restored")
          continue
        }
        #expect(value >= acked, "\(driver.name): \(acked) acknowledged, \(value) restored")
        #expect(value <= sent, "\(driver.name): \(value) restored, \(sent) sent")
        lost += max(0, acked - value)
        acknowledged += acked
        kept[driver.name] = value
      }
      for (name, value) in kept {
        #expect(try check.call("STATE", name) == .bulk("\(value)"), "\(name) changed")
      }
      #expect(
        try daemon.eventually { try check.call("STATE", "r\(round)auth") == .bulk("loggedIn") })
    }
    print("kill -9 (\(durability)): 3 rounds, \(acknowledged) SENDs acknowledged, \(lost) lost")
    #expect(lost == 0)
    #expect(acknowledged > 0)
  }
}
