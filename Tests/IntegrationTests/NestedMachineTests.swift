import Foundation
import MillraceClient
import Testing

/// Machine files v2 through the real daemon: the shipped `media-player` example, with
/// `playing` and `paused` nested in `on`, entry timers and a final state.
@Suite("Nested machines")
struct NestedMachineTests {
  /// A subscriber's next message body on `channel`.
  func message(_ client: ControlClient, on channel: String) throws -> String? {
    let value = try client.read()
    guard case .array(let parts?) = value, parts.count == 3, parts[0] == .bulk("message"),
      parts[1] == .bulk(channel), case .bulk(let body?) = parts[2]
    else {
      Issue.record("not a message on \(channel): \(value)")
      return nil
    }
    return body
  }

  @Test("a machine spawned in a compound state starts in its initial leaf and runs its entries")
  func spawnRunsEntryEffects() throws {
    let daemon = try DaemonProcess().start()
    let driver = try daemon.client()
    let subscriber = try daemon.subscriber(to: "p")
    #expect(try driver.call("SPAWN", "media-player", "p", "on") == .simple("OK"))
    #expect(try message(subscriber, on: "p") == "(start) playing playing")
    #expect(try message(subscriber, on: "p") == "emit poweredOn")
    #expect(try daemon.redisCLI("STATE", "p") == "playing\n")
    // A new machine in `off` (no entry effects) posts nothing.
    #expect(try driver.call("SPAWN", "media-player", "q") == .simple("OK"))
    #expect(try driver.call("STATE", "q") == .bulk("off"))
  }

  @Test("an entry timer fires with nobody connected and stops when its state is left")
  func entryTimerFiresIdleAndStopsOnExit() throws {
    let daemon = try DaemonProcess().start()
    let driver = try daemon.client()
    let subscriber = try daemon.subscriber(to: "p")
    #expect(try driver.call("SEND", "p", "power") == .noMachine)
    _ = try driver.call("SPAWN", "media-player", "p")
    #expect(try driver.call("SEND", "p", "power").strings == ["off", "playing"])
    #expect(try message(subscriber, on: "p") == "power off playing")
    #expect(try message(subscriber, on: "p") == "emit poweredOn")
    // `playing`'s `every 1s tick` ticks on an idle daemon (the driver sends nothing).
    let started = Date()
    #expect(try message(subscriber, on: "p") == "tick playing playing")
    #expect(try message(subscriber, on: "p") == "emit position")
    #expect(Date().timeIntervalSince(started) < 5)
    #expect(try driver.call("SEND", "p", "pause").strings == ["playing", "paused"])
    #expect(try message(subscriber, on: "p") == "pause playing paused")
    // Two periods later, nothing more has been published: the tick stopped with `playing`.
    Thread.sleep(forTimeInterval: 2.2)
    try subscriber.send(["PING"])
    #expect(try subscriber.read() == .array([.bulk("pong"), .bulk("")]))
  }

  @Test("reaching a final state is flagged to subscribers; a final state takes no input")
  func finalStateIsPublished() throws {
    let daemon = try DaemonProcess().start()
    let driver = try daemon.client()
    let subscriber = try daemon.subscriber(to: "p")
    _ = try driver.call("SPAWN", "media-player", "p")
    #expect(try driver.call("SEND", "p", "eject").strings == ["off", "ejected"])
    #expect(try message(subscriber, on: "p") == "eject off ejected final")
    #expect(try message(subscriber, on: "p") == "emit ejected")
    guard case .error(let error) = try driver.call("SEND", "p", "power") else {
      Issue.record("a final state must reject power")
      return
    }
    #expect(error.hasPrefix("REJECTED"))
  }
}

extension RESPValue {
  /// What `SEND` to a machine that does not exist answers.
  static var noMachine: RESPValue { .error("NOMACHINE no machine p") }
}
