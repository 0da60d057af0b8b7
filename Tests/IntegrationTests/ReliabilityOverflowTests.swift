import Foundation
import MillraceClient
import Testing

/// Posting faster than a machine drains (issue 7, docs/reliability.md): with the default
/// `--when-full wait` the connection is paused and nothing is lost; with `--when-full busy`
/// the overflow is answered `-BUSY` and changes nothing. Either way memory stays bounded
/// and the daemon keeps serving the others. ProtocolTests covers the same with 50 requests;
/// these push 50,000 through a queue of 4 while a reader drains the replies.
@Suite("Reliability: queue overflow", .serialized)
struct ReliabilityOverflowTests {
  static let total = 50_000
  static let batch = 1_000

  /// Writes `total` pipelined `SEND c inc`, each after a `SEND t poke` (`pokedIncrements`), on
  /// `client` from another thread while the caller reads.
  final class Pusher: @unchecked Sendable {
    let client: ControlClient
    let finished = DispatchSemaphore(value: 0)
    private(set) var failure: String?

    init(_ client: ControlClient) {
      self.client = client
      Thread.detachNewThread { [self] in
        defer { finished.signal() }
        let bytes = pokedIncrements(batch)
        do {
          for _ in 0..<(total / batch) { try self.client.sendRaw(bytes) }
        } catch {
          failure = "\(error)"
        }
      }
    }
  }

  /// Samples RSS and `clients_waiting_for_room` every 20 ms on its own connection.
  final class Sampler: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var peak = 0
    private var paused = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ daemon: DaemonProcess) {
      let pid = daemon.pid
      let socketPath = daemon.socketPath
      Thread.detachNewThread { [self] in
        defer { done.signal() }
        guard let client = try? ControlClient(address: socketPath, timeoutSeconds: 10) else {
          return
        }
        while lock.withLock({ running }) {
          let rss = DaemonProcess.statusField("VmRSS", of: pid)
          var waiting = 0
          if case .bulk(let text?)? = try? client.call("STATS"),
            let line = text.split(separator: "\r\n").first(where: {
              $0.hasPrefix("clients_waiting_for_room:")
            })
          {
            waiting = Int(line.split(separator: ":")[1]) ?? 0
          }
          lock.withLock {
            peak = max(peak, rss)
            paused = max(paused, waiting)
          }
          usleep(20_000)
        }
      }
    }

    func stop() -> (peakKiB: Int, mostPaused: Int) {
      lock.withLock { running = false }
      done.wait()
      return lock.withLock { (peak, paused) }
    }
  }

  @Test("--when-full wait: the connection pauses, every SEND is processed in order")
  func waitPausesTheConnection() throws {
    let (daemon, client) = try DaemonProcess.withTicker(["--queue-capacity", "4"])
    let before = daemon.residentKiB
    let probe = LatencyProbe(socketPath: daemon.socketPath, interval: 10_000)
    let sampler = Sampler(daemon)
    let pusher = Pusher(client)
    var wrong = 0
    for step in 0..<Self.total {
      let (poke, reply) = (try client.read(), try client.read())
      if poke.strings != ["idle", "idle"] || reply.strings != ["\(step)", "\(step + 1)"] {
        wrong += 1
      }
    }
    pusher.finished.wait()
    let (peak, paused) = sampler.stop()
    let (latencies, failures) = probe.stop()
    print(
      "when-full wait: \(Self.total) SENDs through a queue of 4, RSS \(before) KiB -> peak "
        + "\(peak) KiB, paused connections seen \(paused), bystander PING p99 "
        + "\(milliseconds(latencies, 0.99)) ms")
    #expect(pusher.failure == nil)
    #expect(wrong == 0)
    #expect(try client.call("STATE", "c") == .bulk("\(Self.total)"))
    if !underSanitizer {
      #expect(peak - before < 32 << 10, "RSS \(before) -> \(peak) KiB")
    }
    #expect(failures == [])
    #expect(milliseconds(latencies, 0.5) < 20 * sanitizerSlowdown)
    #expect(daemon.isRunning)
  }

  @Test("--when-full busy: the overflow is answered -BUSY and changes nothing")
  func busyAnswersBusy() throws {
    let (daemon, client) = try DaemonProcess.withTicker([
      "--queue-capacity", "4", "--when-full", "busy",
    ])
    let before = daemon.residentKiB
    let probe = LatencyProbe(socketPath: daemon.socketPath, interval: 10_000)
    let sampler = Sampler(daemon)
    let pusher = Pusher(client)
    var accepted = 0
    var busy = 0
    var wrong: [String] = []
    for _ in 0..<Self.total {
      let poke = try client.read()
      if poke.strings != ["idle", "idle"] && poke.errorCode != "BUSY" && wrong.count < 5 {
        wrong.append("a poke answered \(poke)")
      }
      let reply = try client.read()
      if reply.errorCode == "BUSY" {
        busy += 1
      } else if reply.strings == ["\(accepted)", "\(accepted + 1)"] {
        accepted += 1
      } else if wrong.count < 5 {
        wrong.append("after \(accepted) accepted: \(reply)")
      }
    }
    pusher.finished.wait()
    let (peak, _) = sampler.stop()
    let (latencies, failures) = probe.stop()
    print(
      "when-full busy: \(Self.total) SENDs, \(accepted) accepted, \(busy) busy; RSS \(before) "
        + "KiB -> peak \(peak) KiB; bystander PING p99 \(milliseconds(latencies, 0.99)) ms")
    #expect(pusher.failure == nil)
    #expect(wrong == [])
    #expect(busy > 0)
    #expect(accepted + busy == Self.total)
    #expect(try client.call("STATE", "c") == .bulk("\(accepted)"))
    if !underSanitizer {
      #expect(peak - before < 32 << 10, "RSS \(before) -> \(peak) KiB")
    }
    #expect(failures == [])
    #expect(daemon.isRunning)
  }
}
