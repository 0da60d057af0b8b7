import Foundation
import MillraceClient
import Testing

/// The short form of `scripts/load.sh` (docs/reliability.md): many connections pipelining to
/// their own machines, every reply in order, and the daemon's memory back down once the
/// clients left and their machines were killed.
@Suite("Reliability: load")
struct ReliabilityLoadTests {
  /// Whether this kernel reports a process's huge-page switch (`THP_enabled`, Linux 5.0+) and
  /// this process has them on, so that a daemon it starts would inherit them.
  static let hugePagesInherited = DaemonProcess.statusField("THP_enabled", of: getpid()) == 1

  // A huge page's first fault zeroes 2 MiB on the loop (docs/reliability.md, "Load"): the
  // daemon turns them off for itself, whatever the system's setting.
  @Test(
    "the daemon runs without transparent huge pages",
    .enabled(if: hugePagesInherited))
  func noTransparentHugePages() throws {
    let daemon = try DaemonProcess().start()
    #expect(DaemonProcess.statusField("THP_enabled", of: daemon.pid) == 0)
  }

  @Test("300 connections pipelining 200 SENDs each; RSS comes back down afterwards")
  func memoryComesBack() throws {
    let daemon = try DaemonProcess().start()
    let control = try daemon.client()
    let clientCount = 300
    let window = 100
    let rounds = 2
    let before = daemon.residentKiB
    var clients: [ControlClient] = []
    for index in 0..<clientCount {
      let client = try daemon.client()
      try client.send(["SPAWN", "counter", "m\(index)"])
      clients.append(client)
    }
    #expect(try daemon.stats(on: control)["connected_clients"] == "\(clientCount + 1)")
    var wrong = 0
    for client in clients where try client.read() != .simple("OK") { wrong += 1 }
    for round in 0..<rounds {
      for (index, client) in clients.enumerated() {
        try client.sendRaw(
          Array(repeating: request(["SEND", "m\(index)", "inc"]), count: window).flatMap { $0 })
      }
      for client in clients {
        for step in 0..<window {
          let count = round * window + step
          if try client.read().strings != ["\(count)", "\(count + 1)"] { wrong += 1 }
        }
      }
    }
    let peak = max(daemon.residentKiB, DaemonProcess.statusField("VmHWM", of: daemon.pid))
    clients.removeAll()
    #expect(try daemon.eventually { try daemon.stats(on: control)["connected_clients"] == "1" })
    try control.sendRaw((0..<clientCount).flatMap { request(["KILL", "m\($0)"]) })
    for _ in 0..<clientCount where try control.read() != .simple("OK") { wrong += 1 }
    // The daemon gives freed pages back 1 s after connections close or machines go.
    usleep(2_500_000)
    let after = daemon.residentKiB
    print(
      "load: \(clientCount) connections x \(rounds * window) SENDs; daemon RSS before \(before) "
        + "KiB, peak \(peak) KiB, after \(after) KiB")
    #expect(wrong == 0)
    #expect(peak > before)
    if !underSanitizer {
      #expect(
        after - before <= max(2048, (peak - before) / 4),
        "kept \(after - before) KiB of the \(peak - before) KiB the load added")
    }
  }
}
