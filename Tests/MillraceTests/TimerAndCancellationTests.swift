import Millrace
import Testing

/// `start` starts `every(30 ms, tick)` with id `timer`; `tick` counts; `stop` cancels `timer`.
enum Ticker: PlainMachine {
  enum Input: Equatable { case start, tick, stop }
  static func resolve(
    _ input: Input, state: inout Int, effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .start: effects.every(.milliseconds(30), send: .tick, id: "timer")
    case .tick: state += 1
    case .stop: effects.cancel("timer")
    }
    return .handled
  }
}

/// `request` starts `after(1 s, done)` with id `foo`; `cancel(id)` only exists for `foo`.
enum Requester: PlainMachine {
  enum State: Equatable { case idle, requesting }
  enum Input: Equatable { case request, cancel(EffectID), done, startThenCancel, cancelThenStart }
  static func resolve(
    _ input: Input, state: inout State, effects: inout Effects<Self>
  ) -> Resolution {
    switch (input, state) {
    case (.request, .idle):
      state = .requesting
      effects.after(.seconds(1), send: .done, id: "foo")
    case (.cancel(let id), .requesting) where id == "foo":
      state = .idle
      effects.cancel(id)
    case (.done, .requesting):
      state = .idle
    case (.startThenCancel, _):
      effects.after(.seconds(1), send: .done, id: "foo")
      effects.cancel("foo")
    case (.cancelThenStart, _):
      state = .requesting
      effects.cancel("foo")
      effects.after(.seconds(1), send: .done, id: "foo")
    default:
      return .rejected
    }
    return .handled
  }
}

@Suite("Timers and cancellation")
struct TimerAndCancellationTests {
  let runtime = Runtime()

  @Test("ticks arrive every 30 ms until stopped, then never again")
  func timerSubscription() throws {
    let driver = ManualDriver(runtime: runtime)
    let ticker = try runtime.spawn(Ticker.self, state: 0)
    let recorder = Recorder(ticker, in: runtime)
    _ = ticker.post(.start)
    driver.advance(by: .milliseconds(100))
    #expect(ticker.state == 3)
    let tickTimes = recorder.events.filter { $0.event.reply?.input == .tick }.map(\.at)
    #expect(tickTimes == [.ms(30), .ms(60), .ms(90)])
    _ = ticker.post(.stop)
    driver.advance(by: .seconds(10))
    #expect(ticker.state == 3)
    #expect(runtime.nextDeadline == nil)
    #expect(runtime.statistics.timers == 0)
  }

  @Test("a periodic timer far behind fires once and keeps its phase")
  func periodicCatchUp() throws {
    let ticker = try runtime.spawn(Ticker.self, state: 0)
    _ = ticker.post(.start)
    runtime.dispatch()
    runtime.advance(to: .ms(95))
    runtime.dispatch()
    #expect(ticker.state == 1)
    #expect(runtime.nextDeadline == .ms(120))
  }

  @Test("cancelling an unknown id is rejected and leaves the effect running")
  func cancelUnknownID() throws {
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Requester.self, state: .idle)
    let recorder = Recorder(machine, in: runtime)
    _ = machine.post(.request)
    _ = machine.post(.cancel("dummy"))
    driver.runUntilIdle()
    #expect(recorder.replies.last == .rejected(.cancel("dummy"), state: .requesting))
    driver.advance(by: .seconds(1))
    #expect(recorder.replies.last == .handled(.done, from: .requesting, to: .idle))
  }

  @Test("cancelling by id stops the effect for good")
  func cancelByID() throws {
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Requester.self, state: .idle)
    let recorder = Recorder(machine, in: runtime)
    _ = machine.post(.request)
    driver.advance(by: .milliseconds(500))
    _ = machine.post(.cancel("foo"))
    driver.advance(by: .seconds(10))
    #expect(machine.state == .idle)
    #expect(!recorder.replies.contains { $0.input == .done })
  }

  @Test("a cancel recorded after a start of the same id wins")
  func cancelAfterStartWins() throws {
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Requester.self, state: .requesting)
    let recorder = Recorder(machine, in: runtime)
    _ = machine.post(.startThenCancel)
    driver.advance(by: .seconds(5))
    #expect(!recorder.replies.contains { $0.input == .done })
    #expect(machine.state == .requesting)
  }

  @Test("a start recorded after a cancel of the same id runs")
  func startAfterCancelRuns() throws {
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Requester.self, state: .idle)
    _ = machine.post(.request)
    driver.advance(by: .milliseconds(500))
    _ = machine.post(.cancelThenStart)
    driver.advance(by: .milliseconds(999))
    #expect(machine.state == .requesting)
    driver.advance(by: .milliseconds(1))
    #expect(machine.state == .idle)
    #expect(runtime.statistics.effectsCancelled == 1)
  }

  @Test("a completion already queued is discarded when its effect is cancelled first")
  func cancellationWinsOverQueuedCompletion() throws {
    let machine = try runtime.spawn(Requester.self, state: .idle)
    let recorder = Recorder(machine, in: runtime)
    _ = machine.post(.request)
    runtime.dispatch()
    _ = machine.post(.cancel("foo"))
    runtime.advance(to: .ms(1000))
    #expect(machine.statistics.queued == 2)
    runtime.dispatch()
    runtime.dispatch()
    #expect(machine.state == .idle)
    #expect(recorder.replies.map(\.input) == [.request, .cancel("foo")])
    #expect(runtime.statistics.discarded == 1)
  }

  @Test("a timer counts from the driver's present when one is given, else from the last advance")
  func timerCountsFromThePresent() throws {
    let machine = try runtime.spawn(Requester.self, state: .idle)
    runtime.advance(to: .ms(100))
    // The driver woke at 5 s and reads an input before its turn advances the runtime.
    runtime.presentTime = { .ms(5000) }
    _ = machine.post(.request)
    runtime.dispatch()
    #expect(runtime.nextDeadline == .ms(6000))
    #expect(runtime.now == .ms(5000))
    // Time never moves back, and nothing fired early: the timer is due at its deadline.
    runtime.presentTime = { .ms(10) }
    _ = machine.post(.cancel("foo"))
    _ = machine.post(.request)
    runtime.dispatch()
    runtime.dispatch()
    #expect(runtime.now == .ms(5000))
    #expect(runtime.nextDeadline == .ms(6000))
    runtime.advance(to: .ms(5999))
    runtime.dispatch()
    #expect(machine.state == .requesting)
    // Without one, a timer counts from the last advance.
    runtime.presentTime = nil
    runtime.advance(to: .ms(6000))
    runtime.dispatch()
    #expect(machine.state == .idle)
    _ = machine.post(.request)
    runtime.dispatch()
    #expect(runtime.nextDeadline == .ms(7000))
  }
}
