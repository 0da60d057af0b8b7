import Foundation
import MillraceHost
import Testing

/// Timers of the real daemon when nobody is talking to it (DESIGN §1: idle is a state to
/// test; §4.4: restored timers). Every test leaves the daemon alone while a timer is due:
/// a connection wakes the loop and hides exactly the bugs these look for. Real time, bounded:
/// timers of 200 ms to 1 s, a few seconds a test.
@Suite("Timers on an idle daemon")
struct IdleDaemonTests {
  /// A machines directory with `ticker` (`start`: `every <period>` sends `tick`) and `latch`
  /// (`arm`: `after <delay>` sends `fire`).
  func machines(period: String = "200ms", delay: String = "600ms") throws -> String {
    let directory = NSTemporaryDirectory() + "mr-idle-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try """
    {"kind": "ticker", "initial": "idle", "final": ["ticking"], "transitions": [
      {"on": "start", "from": "idle", "to": "ticking",
       "effects": [{"every": "\(period)", "send": "tick", "id": "tick"}]},
      {"on": "tick", "from": "ticking"}]}
    """.write(toFile: directory + "/ticker.json", atomically: true, encoding: .utf8)
    try """
    {"kind": "latch", "initial": "open", "final": ["fired"], "transitions": [
      {"on": "arm", "from": "open", "to": "armed",
       "effects": [{"after": "\(delay)", "send": "fire"}]},
      {"on": "fire", "from": "armed", "to": "fired"}]}
    """.write(toFile: directory + "/latch.json", atomically: true, encoding: .utf8)
    return directory
  }

  /// Seconds on the monotonic clock.
  static func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
  }

  @Test("a ticker does not stall after a wake-up just before its deadline (point 1)")
  func tickerAfterEarlyWakeUps() throws {
    let period = 0.1
    let daemon = try DaemonProcess(machines: machines(period: "100ms")).start()
    let subscriber = try daemon.client()
    _ = try subscriber.call("SUBSCRIBE", "t")
    let pinger = try daemon.client()
    let client = try daemon.client()
    #expect(try client.call("SPAWN", "ticker", "t") == .simple("OK"))
    #expect(try client.call("SEND", "t", "start").strings == ["idle", "ticking"])
    _ = try subscriber.read()  // the start
    _ = try subscriber.read()  // the first tick
    var previous = Self.now()
    var pings = 0
    var late: [Int] = []
    for tick in 0..<20 {
      // Wake the loop every ~100 µs from 3 ms before the next tick is due until 0.5 ms
      // before, then leave it alone: a timer that fired early and was not armed again
      // waits for the next I/O.
      let due = previous + period
      while Self.now() < due - 0.003 { usleep(200) }
      while Self.now() < due - 0.0005 {
        try pinger.send(["PING"])
        pings += 1
        usleep(100)
      }
      #expect(try subscriber.read().strings?.last == "tick ticking ticking")
      let arrived = Self.now()
      if arrived - due > 0.15 { late.append(tick) }
      previous = arrived
    }
    for _ in 0..<pings { _ = try pinger.read() }
    // One late tick is forgiven: a parallel run under a sanitizer can starve this process
    // for longer than the slack. The stall hits most ticks.
    #expect(late.count <= 1, "ticks that waited for unrelated I/O (or 150 ms): \(late)")
  }

  @Test("a timer a SEND resolved as it was read arms fires with no traffic to wake the loop")
  func timerArmedInPlaceFiresUnattended() throws {
    let daemon = try DaemonProcess(machines: machines(delay: "200ms")).start()
    let client = try daemon.client()
    // Each SEND finds nothing queued, so its step runs in the read callback: the loop must
    // arm its timer for the new deadline before it sleeps. Nothing is sent in the 600 ms
    // after; a STATE is read before a due timer fires, so a stalled one shows `armed`.
    for round in 0..<3 {
      #expect(try client.call("SPAWN", "latch", "l\(round)") == .simple("OK"))
      #expect(try client.call("SEND", "l\(round)", "arm").strings == ["open", "armed"])
      usleep(600_000)
      #expect(try client.call("STATE", "l\(round)") == .bulk("fired"), "round \(round)")
    }
  }

  @Test(
    "a timer armed after the loop slept counts from its SEND, not from the loop's last turn",
    arguments: ["none", "batched"])
  func timerArmedAfterSleepCountsFromItsSend(durability: String) throws {
    let daemon = try DaemonProcess(
      ["--durability", durability], machines: machines(delay: "1s")
    ).start()
    let client = try daemon.client()
    for round in 0..<2 {
      #expect(try client.call("SPAWN", "latch", "l\(round)") == .simple("OK"))
      // The loop sleeps with nothing due: no connection opens or closes, nothing is sent.
      // The SEND then comes on a connection already open, so its read is the first thing the
      // loop does when it wakes; a deadline counted from the turn before the sleep would be
      // past already, and fire at once.
      usleep(1_500_000)
      let sent = Self.now()
      #expect(try client.call("SEND", "l\(round)", "arm").strings == ["open", "armed"])
      usleep(300_000)
      // Checked only while the 1 s is surely not over: a stalled process cannot fail this.
      if Self.now() - sent < 0.9 {
        #expect(try client.call("STATE", "l\(round)") == .bulk("armed"), "round \(round)")
      }
      usleep(1_000_000)
      #expect(try client.call("STATE", "l\(round)") == .bulk("fired"), "round \(round)")
    }
  }

  @Test(
    "timers pending at a stop fire after the restart with no client connected",
    arguments: [SIGTERM, SIGKILL])
  func restoredTimersFireUnattended(stop signal: Int32) throws {
    let daemon = try DaemonProcess(machines: machines()).start()
    do {
      let client = try daemon.client()
      #expect(try client.call("SPAWN", "ticker", "t") == .simple("OK"))
      #expect(try client.call("SEND", "t", "start").strings == ["idle", "ticking"])
      #expect(try client.call("SPAWN", "latch", "l") == .simple("OK"))
      #expect(try client.call("SEND", "l", "arm").strings == ["open", "armed"])
    }
    daemon.stop(signal: signal)
    try daemon.start(quietly: true)
    // 1.5 s alone: about 7 ticks of 200 ms, and the latch's 600 ms run out.
    usleep(1_500_000)
    let client = try daemon.client()
    let dispatched = try #require(Int(daemon.stats(on: client)["inputs_dispatched"] ?? ""))
    // About 8 with the catch-up tick; under a sanitizer, starved ticks are skipped, not queued.
    #expect(dispatched >= 4, "ticks while nobody was connected: \(dispatched)")
    #expect(try client.call("STATE", "l") == .bulk("fired"))
  }

  @Test("a restored every keeps its phase: its ticks stay on the grid it had before the stop")
  func restoredEveryKeepsItsPhase() throws {
    let period = 1.0
    let daemon = try DaemonProcess(machines: machines(period: "1s")).start()
    var grid = 0.0
    do {
      let subscriber = try daemon.client()
      _ = try subscriber.call("SUBSCRIBE", "t")
      let client = try daemon.client()
      #expect(try client.call("SPAWN", "ticker", "t") == .simple("OK"))
      #expect(try client.call("SEND", "t", "start").strings == ["idle", "ticking"])
      _ = try subscriber.read()  // the start
      _ = try subscriber.read()  // the first tick
      grid = Self.now()
    }
    // Stop between two ticks; stay down for a tick or two.
    usleep(300_000)
    daemon.stop()
    usleep(1_200_000)
    try daemon.start(quietly: true)
    // Subscribe half a period off the grid: a ticker restarted from the first connection (or
    // from start-up) would tick there.
    let offset = (Self.now() - grid).truncatingRemainder(dividingBy: period)
    let wait = (period * 0.5 - offset + period).truncatingRemainder(dividingBy: period)
    usleep(UInt32(wait * 1e6))
    let subscriber = try daemon.client()
    _ = try subscriber.call("SUBSCRIBE", "t")
    for _ in 0..<2 {
      #expect(try subscriber.read().strings?.last == "tick ticking ticking")
      let phase = (Self.now() - grid).truncatingRemainder(dividingBy: period)
      let distance = min(phase, period - phase)
      // On the grid but late by delivery (and a starved run), or half a period off it.
      #expect(distance < 0.25, "a tick \(Int(phase * 1000)) ms into the period, not on the grid")
    }
  }

  @Test("a wall clock set back while stopped does not delay a restored timer")
  func clockSetBackWhileStopped() throws {
    let daemon = try DaemonProcess(machines: machines(delay: "1s")).start()
    do {
      let client = try daemon.client()
      #expect(try client.call("SPAWN", "latch", "l") == .simple("OK"))
      #expect(try client.call("SEND", "l", "arm").strings == ["open", "armed"])
    }
    daemon.stop()
    // The deadline as a clock set back an hour after the stop sees it: an hour further away.
    do {
      let store = try MachineStore(directory: daemon.directory + "/data", durability: .batched)
      var latch = try #require(try store.loadAll().first { $0.name == "l" })
      let deadline = try #require(latch.timers.first?.deadlineWallNanoseconds)
      latch.timers[0].deadlineWallNanoseconds = deadline + 3_600 * 1_000_000_000
      try store.save(latch)
      try store.commit()
      try store.checkpoint()
    }
    try daemon.start(quietly: true)
    usleep(1_500_000)
    #expect(try daemon.client().call("STATE", "l") == .bulk("fired"))
  }

  @Test("an idle daemon checkpoints its journal within seconds, with no client to wake it")
  func idleCheckpoint() throws {
    let daemon = try DaemonProcess().start()
    let before: Int
    do {
      let client = try daemon.client()
      // Far fewer changes than make a checkpoint due: only the idle checkpoint takes them.
      for index in 0..<10 {
        #expect(try client.call("SPAWN", "toggle", "t\(index)") == .simple("OK"))
      }
      _ = try client.call("SEND", "t0", "flip")
      before = try #require(Int(daemon.stats(on: client)["store_checkpoints"] ?? ""))
    }
    // Nobody talks to it: the store monitor's ticks see no commit, then checkpoint.
    usleep(3_500_000)
    let after = { Int(try daemon.stats()["store_checkpoints"] ?? "") ?? before }
    #expect(try daemon.eventually(seconds: 3) { try after() > before })
  }
}
