import Millrace
import Testing

@Suite("Observers")
struct ObserverTests {
  typealias AuthMachine = TableMachine<AuthInput, AuthState, Never>

  /// A runtime with one auth machine (no delays) and the log its observers write to.
  final class Rig {
    let runtime = Runtime()
    let auth: MachineHandle<TableMachine<AuthInput, AuthState, Never>>
    var log: [String] = []

    init() throws {
      auth = try runtime.spawn(table: authTable(delays: false), state: .loggedOut)
    }

    /// Adds an observer that logs `name` and the input of each reply it sees.
    func observe(as name: String) {
      auth.observe { [unowned self] event in
        if let reply = event.reply { self.log.append("\(name):\(reply.input)") }
      }
    }
  }

  @Test("every observer sees each reply once, in the order they were added")
  func order() throws {
    let rig = try Rig()
    for name in ["a", "b", "c"] { rig.observe(as: name) }
    _ = rig.auth.post(.login)
    _ = rig.auth.post(.loginOK)
    rig.runtime.dispatch()
    #expect(rig.log == ["a:login", "b:login", "c:login", "a:loginOK", "b:loginOK", "c:loginOK"])
  }

  @Test("an observer added while a reply is delivered sees that reply after the others")
  func addedDuringDelivery() throws {
    let rig = try Rig()
    rig.observe(as: "a")
    var added = false
    rig.auth.observe { [unowned rig] _ in
      guard !added else { return }
      added = true
      rig.observe(as: "late")
    }
    _ = rig.auth.post(.login)
    rig.runtime.dispatch()
    #expect(rig.log == ["a:login", "late:login"])
  }

  @Test("an observer that removes the machine is the last to see the reply")
  func removalStopsLaterObservers() throws {
    let rig = try Rig()
    rig.observe(as: "a")
    rig.auth.observe { [unowned rig] _ in rig.runtime.remove(rig.auth) }
    rig.observe(as: "b")
    _ = rig.auth.post(.login)
    rig.runtime.dispatch()
    #expect(rig.log == ["a:login"])
    #expect(!rig.auth.isAlive)
  }

  @Test("a cancelled observer sees nothing more; cancelling twice, or after removal, is refused")
  func cancel() throws {
    let rig = try Rig()
    rig.observe(as: "a")
    var seen = 0
    let observation = try #require(rig.auth.observe { _ in seen += 1 })
    _ = rig.auth.post(.login)
    rig.runtime.dispatch()
    #expect(observation.cancel())
    #expect(!observation.cancel())
    _ = rig.auth.post(.loginOK)
    rig.runtime.dispatch()
    #expect(seen == 1)
    #expect(rig.log == ["a:login", "a:loginOK"])
    let late = try #require(rig.auth.observe { _ in })
    rig.runtime.remove(rig.auth)
    #expect(!late.cancel())
    #expect(rig.auth.observe { _ in } == nil)
  }

  @Test(
    "an observer cancelled during a delivery, itself or another, misses nothing of the others",
    arguments: [0, 1, 2])
  func cancelDuringDelivery(_ cancelled: Int) throws {
    // Observer 1 cancels observer `cancelled` (0: the one before it, 1: itself, 2: the one
    // after it) on the first reply; every other observer sees both replies once.
    let rig = try Rig()
    var observations: [Observation] = []
    for index in 0..<4 {
      let observer: (MachineEvent<AuthInput, AuthState, Never>) -> Void = { [unowned rig] in
        guard let reply = $0.reply else { return }
        rig.log.append("\(index):\(reply.input)")
        if index == 1 && reply.input == .login { observations[cancelled].cancel() }
      }
      observations.append(try #require(rig.auth.observe(observer)))
    }
    _ = rig.auth.post(.login)
    _ = rig.auth.post(.loginOK)
    rig.runtime.dispatch()
    let expected: [Int: [String]] = [
      0: ["0:login", "1:login", "2:login", "3:login", "1:loginOK", "2:loginOK", "3:loginOK"],
      1: ["0:login", "1:login", "2:login", "3:login", "0:loginOK", "2:loginOK", "3:loginOK"],
      2: ["0:login", "1:login", "3:login", "0:loginOK", "1:loginOK", "3:loginOK"],
    ]
    #expect(rig.log == expected[cancelled])
  }

  /// Lives as long as something keeps it; says when it goes.
  final class Witness {
    var onDeinit: () -> Void = {}
    deinit { onDeinit() }
  }

  @Test("cancelling releases the observer: at once outside a dispatch, after it from inside")
  func cancelReleases() throws {
    let rig = try Rig()
    var released = 0
    do {
      let witness = Witness()
      witness.onDeinit = { released += 1 }
      let observation = try #require(rig.auth.observe { _ in _ = witness })
      observation.cancel()
    }
    #expect(released == 1)
    var observation: Observation?
    var releasedDuringDispatch = -1
    do {
      let witness = Witness()
      witness.onDeinit = { released += 1 }
      observation = rig.auth.observe { [unowned rig] _ in
        _ = witness
        observation?.cancel()
        // Still alive: it is the observer being called.
        rig.log.append("cancelled")
      }
    }
    rig.auth.observe { _ in releasedDuringDispatch = released }
    _ = rig.auth.post(.login)
    rig.runtime.dispatch()
    #expect(rig.log == ["cancelled"])
    #expect(releasedDuringDispatch == 1)
    #expect(released == 2)
  }

  @Test("a dispatch releases an observer cancelled in it before it returns, limit or not")
  func releasedWithinTheDispatch() throws {
    for limit in [Int.max, 1] {
      let rig = try Rig()
      let other = try rig.runtime.spawn(table: authTable(delays: false), state: .loggedOut)
      var released = 0
      var releasedWhenOtherRan = -1
      var observation: Observation?
      do {
        let witness = Witness()
        witness.onDeinit = { released += 1 }
        observation = rig.auth.observe { _ in
          _ = witness
          observation?.cancel()
          _ = other.post(.login)
        }
      }
      other.observe { _ in releasedWhenOtherRan = released }
      _ = rig.auth.post(.login)
      let steps = rig.runtime.dispatch(limit: limit)
      #expect(released == 1)
      // Without a limit the other machine's step comes after the release, which waits on the
      // ready list behind the cancelling step; with a limit of 1 it does not run at all.
      #expect(steps == (limit == 1 ? 1 : 2))
      #expect(releasedWhenOtherRan == (limit == 1 ? -1 : 1))
    }
  }

  @Test("an observer that holds its runtime strongly lets it go once cancelled")
  func cancelEndsCycle() throws {
    weak var weakRuntime: Runtime?
    var observation: Observation?
    do {
      let runtime = Runtime()
      weakRuntime = runtime
      let machine = try runtime.spawn(table: authTable(delays: false), state: .loggedOut)
      observation = machine.observe { _ in _ = runtime.statistics }
    }
    #expect(weakRuntime != nil)
    #expect(observation?.cancel() == true)
    #expect(weakRuntime == nil)
    #expect(observation?.cancel() == false)
  }

  @Test("observeAll's observation stops the type's observer, for kinds old and new")
  func cancelObserveAll() throws {
    let runtime = Runtime()
    var seen: [String] = []
    let first = runtime.observeAll(AuthMachine.self) { _, _ in seen.append("first") }
    let second = runtime.observeAll(AuthMachine.self) { _, event in
      if event.reply != nil { seen.append("second") }
    }
    #expect(!first.cancel())
    let machine = try runtime.spawn(table: authTable(delays: false), state: .loggedOut)
    _ = machine.post(.login)
    runtime.dispatch()
    #expect(seen == ["second"])
    #expect(second.cancel())
    #expect(!second.cancel())
    _ = machine.post(.loginOK)
    // A kind of the type made after the cancel has no observer either.
    let other = try runtime.spawn(
      table: authTable(delays: true, latest: true), state: .loggedOut)
    _ = other.post(.login)
    runtime.dispatch()
    #expect(seen == ["second"])
  }
}
