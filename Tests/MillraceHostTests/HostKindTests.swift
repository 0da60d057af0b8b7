import Logging
import Millrace
import MillraceHost
import Testing

@Suite("Hosted code kinds")
struct HostKindTests {
  let runtime = Runtime()

  /// A host of `kinds` on `runtime`, without a store, whose events go to `log`.
  static func host(_ runtime: Runtime, _ kinds: [HostKind], log: EventLog? = nil) -> MachineHost {
    let host = MachineHost(runtime: runtime, store: nil, logger: Logger(label: "test")) {
      HostClock(monotonic: runtime.now, wallNanoseconds: 0)
    }
    host.register(kinds)
    if let log { host.onEvent = { event, _ in log.events.append(event) } }
    return host
  }

  func spawnCounter(_ state: String? = nil, into log: EventLog) throws -> HostedMachine {
    try Self.host(runtime, [Counter.kind], log: log).spawn(kind: "counter", name: "c", state: state)
      .get()
  }

  final class EventLog { var events: [HostedEvent] = [] }

  @Test("a spawn past the runtime's machine slots is refused -BUSY, naming the limit")
  func spawnRefusedNamesTheLimit() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 1))
    let host = Self.host(runtime, [Counter.kind])
    _ = try host.spawn(kind: "counter", name: "c", state: nil).get()
    let refused = host.spawn(kind: "counter", name: "d", state: nil)
    #expect(
      throws: HostFailure(
        .busy, "no room for another machine: every machine slot is in use (--max-machines)")
    ) {
      try refused.get()
    }
    #expect(host.machine("d") == nil)
    #expect(host.machineCount == 1)
    #expect(runtime.statistics.machines == 1)
  }

  @Test("a code kind parses inputs, prints replies and outputs as text")
  func textRoundTrip() throws {
    let log = EventLog()
    let counter = try spawnCounter("2", into: log)
    #expect(counter.post("dec", tag: PostTag(1)) == .accepted)
    #expect(counter.post("add:-1", tag: PostTag(2)) == .accepted)
    #expect(counter.post("dec", tag: PostTag(3)) == .accepted)
    #expect(counter.post("jump", tag: PostTag(4)) == .unknownInput)
    runtime.dispatch()
    #expect(
      log.events == [
        .handled(input: "dec", from: "2", to: "1", tag: PostTag(1)),
        .handled(input: "add:-1", from: "1", to: "0", tag: PostTag(2)),
        .emitted("zero"),
        .rejected(input: "dec", state: "0", tag: PostTag(3)),
      ])
    #expect(log.events.map(\.message) == ["dec 2 1", "add:-1 1 0", "emit zero", "rejected dec 0"])
    #expect(counter.stateText == "0")
  }

  @Test("an unknown initial state is refused")
  func unknownState() {
    let result = Self.host(runtime, [Counter.kind]).spawn(
      kind: "counter", name: "c", state: "minus")
    #expect(throws: HostFailure(.nostate, "kind counter has no state minus")) { try result.get() }
  }

  @Test("stored timers come back with their wall-clock deadlines")
  func storedTimersRoundTrip() throws {
    enum Alarm: PlainMachine {
      static func resolve(
        _ input: String, state: inout String, effects: inout Effects<Self>
      ) -> Resolution {
        if input == "arm" { effects.after(.seconds(2), send: "ring", id: "alarm") }
        state = input
        return .handled
      }
    }
    let codec = TextCodec<Alarm>(
      parseInput: { $0 == "arm" || $0 == "ring" ? $0 : nil }, formatInput: { $0 },
      parseState: { $0 }, formatState: { $0 }, formatOutput: { never in switch never {} })
    let kind = HostKind.code("alarm", Alarm.self, initial: "idle", extra: (), codec: codec)
    let driver = ManualDriver(runtime: runtime)
    let alarm = try Self.host(runtime, [kind]).spawn(kind: "alarm", name: "a", state: nil).get()
    _ = alarm.post("arm", tag: .none)
    driver.advance(by: .milliseconds(500))
    let clock = HostClock(monotonic: runtime.now, wallNanoseconds: 1_000_000_000_000)
    let stored = try #require(alarm.stored(clock: clock))
    #expect(stored.state == "arm")
    #expect(stored.timers.map(\.deadlineWallNanoseconds) == [1_000_000_000_000 + 1_500_000_000])
    #expect(stored.timers.map(\.remainingNanoseconds) == [1_500_000_000])

    let later = Runtime()
    let laterDriver = ManualDriver(runtime: later)
    let log = EventLog()
    let restored = try Self.host(later, [kind], log: log).spawn(
      kind: "alarm", name: "a", state: stored.state
    ).get()
    let laterClock = HostClock(
      monotonic: later.now, wallNanoseconds: 1_000_000_000_000 + 1_000_000_000)
    #expect(restored.restore(stored.timers, clock: laterClock) == [])
    laterDriver.advance(by: .milliseconds(499))
    #expect(restored.stateText == "arm")
    laterDriver.advance(by: .milliseconds(1))
    #expect(restored.stateText == "ring")
  }
}
