import Testing

@testable import MillraceHost

/// The machines shipped in `examples/machines` load cleanly and behave as documented.
@Suite struct ExampleMachineTests {
  let catalog: KindCatalog

  init() throws {
    catalog = try KindCatalog(directory: TestData.examples)
  }

  @Test func everyExampleLoadsWithoutWarnings() {
    #expect(
      catalog.names == [
        "auth", "circuit-breaker", "door", "login", "media-player", "toggle", "traffic-light",
      ])
    #expect(catalog.warnings.isEmpty)
    #expect(catalog.kinds.map(\.source) == catalog.names.map { $0 + ".json" })
  }

  /// The nested example: `playing` and `paused` inside `on`, entry timers that stop when
  /// their state is left, an input of `on` that every child takes, and a final state.
  @Test func mediaPlayerNestsPlayingAndPausedInOn() throws {
    let player = try #require(catalog[kind: "media-player"])
    #expect(
      player.walk("power", in: "off")
        == "playing: poweredOn after sleep (on entry 1) every tick (playing entry 0)")
    #expect(
      player.walk("pause", in: "playing")
        == "paused: cancel playing entry 0 after stop (paused entry 0)")
    #expect(
      player.walk("stop", in: "paused")
        == "playing: cancel paused entry 0 cancel on entry 1 poweredOff poweredOn "
        + "after sleep (on entry 1) every tick (playing entry 0)")
    #expect(
      player.walk("sleep", in: "playing")
        == "off: cancel playing entry 0 cancel on entry 1 poweredOff")
    #expect(player.walk("tick", in: "playing") == "stay: position")
    #expect(player.walk("tick", in: "paused") == "rejected")
    #expect(player.walk("eject", in: "paused").hasPrefix("ejected: cancel paused entry 0"))
    #expect(player.tree.finals[Int(player.states.index(of: "ejected")!)])
    #expect(player.walk("power", in: "ejected") == "rejected")
  }

  @Test func authIsTheHarvestLoginMachine() throws {
    let auth = try #require(catalog[kind: "auth"])
    #expect(auth.outcome("login", in: "loggedOut") == "loggingIn")
    #expect(auth.outcome("login", in: "loggedIn") == "rejected")
    #expect(auth.outcome("loginOK", in: "loggingIn") == "loggedIn")
    #expect(auth.outcome("logout", in: "loggedIn") == "loggingOut")
    #expect(auth.outcome("logoutOK", in: "loggingOut") == "loggedOut")
    #expect(auth.outcome("forceLogout", in: "loggingIn") == "loggingOut")
    #expect(auth.outcome("forceLogout", in: "loggedIn") == "loggingOut")
    #expect(auth.outcome("forceLogout", in: "loggedOut") == "rejected")
    let request = auth.queues.index(of: "request")
    let timers = auth.effects.compactMap { effect -> KindDefinition.Timer? in
      if case .after(let timer) = effect { timer } else { nil }
    }
    #expect(timers.count == 3)
    #expect(timers.allSatisfy { $0.queue == request && $0.nanoseconds == 1_000_000_000 })
  }

  @Test func toggleAcceptsEveryInputInEveryState() throws {
    let toggle = try #require(catalog[kind: "toggle"])
    #expect(toggle.outcome("flip", in: "off") == "on")
    #expect(toggle.outcome("flip", in: "on") == "off")
    for state in toggle.states.names {
      #expect(toggle.outcome("on", in: state) == "on")
      #expect(toggle.outcome("off", in: state) == "off")
    }
  }

  @Test func trafficLightCyclesOnItsOwnTimerAndEmitsItsColour() throws {
    let light = try #require(catalog[kind: "traffic-light"])
    #expect(light.states[light.initial] == "red")
    var state = "red"
    var emitted: [String] = []
    for _ in 0..<3 {
      let row = try #require(
        light.firstMatch(
          input: light.inputs.index(of: "tick")!, state: light.states.index(of: state)!))
      state = light.states[light.rows[row].to!]
      for case .emit(let output) in light.effects(of: light.rows[row]) {
        emitted.append(light.outputs[output])
      }
    }
    #expect(emitted == ["green", "yellow", "red"])
    let cycle = try #require(light.effectIDs.index(of: "cycle"))
    let start = light.rows[light.firstMatch(input: light.inputs.index(of: "start")!, state: 0)!]
    #expect(
      Array(light.effects(of: start)) == [
        .cancel(cycle),
        .every(
          .init(
            nanoseconds: 1_000_000_000, input: light.inputs.index(of: "tick")!, queue: 0, id: cycle)
        ),
      ])
    let stop = light.rows[light.firstMatch(input: light.inputs.index(of: "stop")!, state: 1)!]
    #expect(Array(light.effects(of: stop)) == [.cancel(cycle)])
  }

  @Test func doorAutoClosesUnlessClosedByHand() throws {
    let door = try #require(catalog[kind: "door"])
    let autoclose = try #require(door.effectIDs.index(of: "autoclose"))
    let open = door.rows[
      door.firstMatch(input: door.inputs.index(of: "open")!, state: door.initial)!]
    #expect(
      Array(door.effects(of: open)) == [
        .after(
          .init(
            nanoseconds: 5_000_000_000, input: door.inputs.index(of: "autoClose")!, queue: 0,
            id: autoclose))
      ])
    let opened = door.states.index(of: "opened")!
    let close = door.rows[door.firstMatch(input: door.inputs.index(of: "close")!, state: opened)!]
    #expect(Array(door.effects(of: close)) == [.cancel(autoclose)])
    #expect(door.outcome("autoClose", in: "opened") == "closed")
    #expect(door.outcome("lock", in: "closed") == "locked")
    #expect(door.outcome("open", in: "locked") == "rejected")
    #expect(door.outcome("unlock", in: "locked") == "closed")
  }
}
