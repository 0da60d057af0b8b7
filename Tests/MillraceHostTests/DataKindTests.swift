import Foundation
import Testing

@testable import Millrace
@testable import MillraceHost

/// Kinds with data (machine files v2) hosted in a runtime: context, parameters, guards,
/// assignments, values on outputs and timers, and their text forms.
@Suite struct DataKindTests {
  let runtime = Runtime()

  /// A login that locks out after three failed attempts; reset after 30 s.
  static let login = #"""
    { "kind": "login", "initial": "idle",
      "context": { "attempts": { "type": "int" }, "user": { "type": "string", "max": 16 } },
      "inputs": [ "reset",
        { "name": "login", "params": [ { "name": "name", "type": "string", "max": 16 },
                                       { "name": "pin", "type": "int" } ] } ],
      "outputs": [ "welcome", "locked" ],
      "states": [ "idle", "session",
        { "name": "lockedOut", "entry": [ { "after": "30s", "send": "reset" } ] } ],
      "transitions": [
        { "on": "login", "from": "idle", "guard": "pin == 1234", "to": "session",
          "assign": { "user": "name", "attempts": "0" },
          "effects": [ { "emit": "welcome", "args": [ "user" ] } ] },
        { "on": "login", "from": "idle", "guard": "attempts + 1 >= 3", "to": "lockedOut",
          "assign": { "attempts": "attempts + 1" },
          "effects": [ { "emit": "locked", "args": [ "name", "attempts" ] } ] },
        { "on": "login", "from": "idle", "assign": { "attempts": "attempts + 1" } },
        { "on": "reset", "from": "lockedOut", "to": "idle", "assign": { "attempts": "0" } },
        { "on": "reset", "from": "session", "to": "idle" } ] }
    """#

  func host(_ json: String, log: HostKindTests.EventLog) throws -> MachineHost {
    let definition = try compile(json)
    return HostKindTests.host(runtime, [.file(definition, json: json)], log: log)
  }

  @Test func aKindOfOneWordKeepsAQueuedInputInTheBlock() throws {
    #expect(_TypedMachine<DataMachine<DataWords1>>.hasInlineSlot)
    #expect(!_TypedMachine<DataMachine<DataWords2>>.hasInlineSlot)
    let json = #"""
      { "kind": "adder", "initial": "on", "context": { "sum": { "type": "int" } },
        "inputs": [ { "name": "add", "params": [ { "name": "n", "type": "int" } ] } ],
        "states": [ "on" ],
        "transitions": [ { "on": "add", "from": "on", "assign": { "sum": "sum + n" } } ] }
      """#
    let host = try host(json, log: HostKindTests.EventLog())
    let machine = try host.spawn(kind: "adder", name: "a", state: nil).get()
    func cellsInUse() -> Int { runtime._pools.first { $0.inputs }?.pool.pointee.live ?? 0 }
    #expect(machine.post("add", ["2"], tag: .none) == .accepted)
    #expect(cellsInUse() == 0)
    #expect(machine.post("add", ["3"], tag: .none) == .accepted)
    #expect(cellsInUse() == 2)
    runtime.dispatch()
    #expect(machine.stateDetails?.context.map(\.value) == ["5"])
    #expect(cellsInUse() == 0)
  }

  @Test func guardsAssignmentsAndValuesDecideAndCarryWhatHappens() throws {
    let log = HostKindTests.EventLog()
    let host = try host(Self.login, log: log)
    let machine = try host.spawn(kind: "login", name: "m", state: nil).get()
    for pin in ["1", "2"] { #expect(machine.post("login", ["bob", pin], tag: .none) == .accepted) }
    runtime.dispatch()
    #expect(machine.stateDetails?.context.map(\.value) == ["2", ""])
    #expect(machine.post("login", ["bob", "3"], tag: .none) == .accepted)
    runtime.dispatch()
    #expect(machine.stateText == "lockedOut")
    #expect(
      log.events.map(\.message).suffix(2) == [
        #"login("bob",3) idle lockedOut"#, #"emit locked("bob",3)"#,
      ])
    #expect(machine.post("reset", tag: .none) == .accepted)
    #expect(machine.post("login", ["ann lee", "1234"], tag: .none) == .accepted)
    runtime.dispatch()
    #expect(machine.stateText == "session")
    #expect(log.events.last?.message == #"emit welcome("ann\u0020lee")"#)
    #expect(machine.stateDetails?.context.map(\.value) == ["0", "ann lee"])
  }

  @Test func argumentsThatDoNotFitAreRefusedNamingTheParameter() throws {
    let log = HostKindTests.EventLog()
    let host = try host(Self.login, log: log)
    let machine = try host.spawn(kind: "login", name: "m", state: nil).get()
    // An input with parameters sent without arguments: not taken for another input.
    #expect(
      machine.post("login", tag: .none)
        == .badArguments("input login takes 2 arguments (name: string, pin: int); got 0"))
    #expect(
      machine.post("login", ["bob"], tag: .none)
        == .badArguments("input login takes 2 arguments (name: string, pin: int); got 1"))
    #expect(
      machine.post("login", ["bob", "12x"], tag: .none)
        == .badArguments(
          #"input login: parameter pin (int): expected an integer, got "12x""#))
    #expect(
      machine.post("login", [String(repeating: "a", count: 17), "1"], tag: .none)
        == .badArguments("input login: parameter name (string): longer than 16 bytes"))
    #expect(
      machine.post("reset", ["1"], tag: .none)
        == .badArguments("input reset takes no arguments; got 1"))
    runtime.dispatch()
    #expect(log.events.isEmpty)
  }

  /// The events and the context after `add(first)` and then `add(1)` are posted to a machine
  /// whose only row is `row` and whose `n` starts 7 below `Int64.max`.
  func afterTwoAdds(
    _ row: String, first: String, extra: String = ""
  ) throws -> (events: [String], context: [String]?) {
    let json = machine(
      row,
      extra: #"""
        "context": { "n": { "type": "int", "initial": 9223372036854775800 } },
        "inputs": [ { "name": "add", "params": [ { "name": "by", "type": "int" } ] } ],
        """# + extra)
    let log = HostKindTests.EventLog()
    let machine = try host(json, log: log).spawn(kind: "k", name: "m", state: nil).get()
    _ = machine.post("add", [first], tag: .none)
    _ = machine.post("add", ["1"], tag: .none)
    runtime.dispatch()
    return (log.events.map(\.message), machine.stateDetails?.context.map(\.value))
  }

  @Test func anOverflowRejectsTheInputAndChangesNothing() throws {
    let (events, context) = try afterTwoAdds(
      #"{ "on": "add", "from": "a", "assign": { "n": "n + by" }, "effects": [ { "emit": "sum", "args": [ "n" ] } ] }"#,
      first: "7")
    #expect(events == ["add(7) a a", "emit sum(9223372036854775807)", "rejected add(1) a"])
    #expect(context == ["9223372036854775807"])
  }

  @Test func anEffectArgumentThatOverflowsRejectsTheInputAndRecordsNoEffect() throws {
    let (events, context) = try afterTwoAdds(
      #"{ "on": "add", "from": "a", "to": "b", "assign": { "n": "n + 1" }, "effects": [ { "emit": "sum", "args": [ "n" ] }, { "emit": "sum", "args": [ "n + by" ] } ] }"#,
      first: "100", extra: #""final": [ "b" ],"#)
    // The first emit's argument evaluates, the second's overflows: neither is emitted, and
    // the state and the context are as before the input.
    #expect(
      events == [
        "rejected add(100) a", "add(1) a b final", "emit sum(9223372036854775801)",
        "emit sum(9223372036854775802)",
      ])
    #expect(context == ["9223372036854775801"])
  }

  @Test func theStoredFormKeepsTheContextAndTimerArguments() throws {
    let log = HostKindTests.EventLog()
    let host = try host(Self.login, log: log)
    let machine = try host.spawn(kind: "login", name: "m", state: nil).get()
    for pin in ["1", "2", "3"] { _ = machine.post("login", ["b\"\\ x", pin], tag: .none) }
    runtime.dispatch()
    let clock = HostClock(monotonic: runtime.now, wallNanoseconds: 0)
    let stored = try #require(machine.stored(clock: clock))
    #expect(stored.state == #"lockedOut{attempts=3,user=""}"#)
    #expect(stored.timers.map(\.input) == ["reset"])
    let codec = try #require(
      DataKind<DataWords4>(compile(Self.login)).codec as TextCodec<DataMachine<DataWords4>>?)
    let parsed = try #require(codec.parseState(#"session{user="b\"\\\u0020x",attempts=-2}"#))
    #expect(codec.formatStoredState(parsed) == #"session{attempts=-2,user="b\"\\\u0020x"}"#)
    #expect(codec.parseState(#"idle{nobody=1}"#) == nil)
    #expect(codec.parseState(#"idle{attempts="1"}"#) == nil)
    #expect(codec.parseState("idle").map(codec.formatStoredState) == #"idle{attempts=0,user=""}"#)
    let input = try #require(codec.parseInput(#"login("a,b",7)"#))
    #expect(codec.formatInput(input) == #"login("a,b",7)"#)
    #expect(codec.parseInput("login") == nil && codec.parseInput("login(1)") == nil)
  }

  /// The host of an example kind (`examples/machines/<name>.json`), timers on `driver`.
  func example(_ name: String, log: HostKindTests.EventLog) throws -> MachineHost {
    let catalog = try KindCatalog(directory: TestData.examples)
    let definition = try #require(catalog[kind: name])
    return HostKindTests.host(runtime, [.file(definition)], log: log)
  }

  @Test func theLoginExampleLocksOutAfterThreeFailuresAndUnlocksAfter30s() throws {
    let log = HostKindTests.EventLog()
    let driver = ManualDriver(runtime: runtime)
    let machine = try example("login", log: log).spawn(kind: "login", name: "m", state: nil).get()
    for pin in ["1", "2", "3", "1234"] { _ = machine.post("login", ["eve", pin], tag: .none) }
    driver.advance(by: .zero)
    #expect(
      log.events.map(\.message) == [
        #"login("eve",1) idle idle"#, #"emit failed("eve",2)"#,
        #"login("eve",2) idle idle"#, #"emit failed("eve",1)"#,
        #"login("eve",3) idle lockedOut"#, #"emit locked("eve",3)"#,
        #"rejected login("eve",1234) lockedOut"#,
      ])
    driver.advance(by: .seconds(29))
    #expect(machine.stateText == "lockedOut")
    driver.advance(by: .seconds(1))
    #expect(machine.stateText == "idle")
    _ = machine.post("login", ["eve", "1234"], tag: .none)
    driver.advance(by: .zero)
    #expect(machine.stateText == "session")
    #expect(machine.stateDetails?.context.map(\.value) == ["0", "eve"])
  }

  @Test func theCircuitBreakerOpensAtItsThresholdAndProbesAfterATimer() throws {
    let log = HostKindTests.EventLog()
    let driver = ManualDriver(runtime: runtime)
    let host = try example("circuit-breaker", log: log)
    let breaker = try host.spawn(kind: "circuit-breaker", name: "b", state: nil).get()
    try #require(host.machine("b") != nil)
    _ = breaker.post("configure", ["2"], tag: .none)
    _ = breaker.post("failure", tag: .none)
    driver.advance(by: .seconds(10))  // the window ends: the failure is forgotten
    _ = breaker.post("failure", tag: .none)
    driver.advance(by: .zero)
    #expect(breaker.stateText == "closed")
    _ = breaker.post("failure", tag: .none)
    driver.advance(by: .zero)
    #expect(breaker.stateText == "open")
    #expect(log.events.last?.message == "emit opened(2)")
    #expect(breaker.post("success", tag: .none) == .accepted)
    driver.advance(by: .seconds(5))
    #expect(breaker.stateText == "halfOpen")
    _ = breaker.post("success", tag: .none)
    driver.advance(by: .zero)
    #expect(breaker.stateText == "closed")
    #expect(breaker.stateDetails?.context.map(\.value) == ["0", "2"])
    #expect(
      log.events.map(\.message).filter { $0.hasPrefix("emit") || $0.hasPrefix("rejected") } == [
        "emit opened(2)", "rejected success open", "emit halfOpened", "emit closed",
      ])
  }

  /// `DESCRIBE counter` answers a v2 file that does what `Counter` does: it loads, and run
  /// side by side on the same inputs both end each step with the same count and outputs.
  @Test func theCounterDescribesWhatItDoes() throws {
    let definition = try compile(Counter.definition, file: "counter")
    let log = HostKindTests.EventLog()
    let described = HostKindTests.host(runtime, [.file(definition)], log: log)
    let file = try described.spawn(kind: "counter", name: "f", state: nil).get()
    let codeLog = HostKindTests.EventLog()
    let code = try HostKindTests.host(runtime, [Counter.kind], log: codeLog)
      .spawn(kind: "counter", name: "c", state: nil).get()
    let steps: [(String, [String])] = [
      ("inc", []), ("dec", []), ("dec", []), ("add", ["5"]), ("add", ["-5"]), ("add", ["-1"]),
      ("inc", []), ("reset", []), ("reset", []), ("add", ["9223372036854775807"]), ("inc", []),
    ]
    for (input, arguments) in steps {
      #expect(file.post(input, arguments, tag: .none) == .accepted)
      #expect(code.post(input, arguments, tag: .none) == .accepted)
      runtime.dispatch()
      #expect(file.stateDetails?.context.first?.value == code.stateText)
      #expect(
        log.events.filter { if case .emitted = $0 { true } else { false } }
          == codeLog.events.filter { if case .emitted = $0 { true } else { false } })
      #expect(log.events.last.map(Self.isRejected) == codeLog.events.last.map(Self.isRejected))
    }
  }

  static func isRejected(_ event: HostedEvent) -> Bool {
    if case .rejected = event { true } else { false }
  }

  final class Requester: SendRequester {
    var finished: [(UInt64, SendOutcome)] = []
    func sendFinished(ticket: UInt64, _ outcome: SendOutcome) { finished.append((ticket, outcome)) }
  }

  /// A spawn whose states have entry effects is answered once they ran, as a send is, so that
  /// its acknowledgment waits for the commit that stores the timers they started.
  @Test func aSpawnIsAnsweredOnceItsEntryEffectsRan() throws {
    let log = HostKindTests.EventLog()
    let host = try example("circuit-breaker", log: log)
    let requester = Requester()
    let (breaker, started) = try host.spawn(
      kind: "circuit-breaker", name: "b", state: nil, answering: requester, ticket: 7
    ).get()
    #expect(!started && requester.finished.isEmpty && runtime.statistics.timers == 0)
    runtime.dispatch()
    #expect(requester.finished.map(\.0) == [7])
    #expect(runtime.statistics.timers == 1)
    #expect(
      breaker.stored(clock: HostClock(monotonic: runtime.now, wallNanoseconds: 0))?.timers.count
        == 1)
    // A kind without entry effects in its initial state is started at once: nothing posted.
    let plain = try example("login", log: log).spawn(
      kind: "login", name: "l", state: nil, answering: requester, ticket: 8
    ).get()
    #expect(plain.started)
    runtime.dispatch()
    #expect(requester.finished.map(\.0) == [7])
  }

  /// Every (input, state) pair finds its own rows, in a kind whose state count is not a power
  /// of two (dispatch pads the pairs to one), with a pair whose first row's guard fails, with
  /// and without the kind's copies of each pair's first candidate (`DataKind._heads`).
  @Test(arguments: [DataKind<DataWords1>.headsLimit, 0])
  func everyPairOfInputAndStateFindsItsRows(headsLimit: Int) throws {
    let json = #"""
      { "kind": "k", "initial": "a", "context": { "n": { "type": "int" } },
        "inputs": [ "x", "y", "z" ],
        "states": [ "a", "b", "c", "d", "e" ],
        "transitions": [
          { "on": "x", "from": "a", "to": "e", "guard": "n < 0" },
          { "on": "x", "from": "a", "to": "b", "assign": { "n": "n + 1" } },
          { "on": "y", "from": "b", "to": "c", "assign": { "n": "n + 10" } },
          { "on": "z", "from": "c", "to": "d", "assign": { "n": "n + 100" } },
          { "on": "x", "from": "d", "to": "e", "assign": { "n": "n + 1000" } },
          { "on": "z", "from": "e", "to": "a", "assign": { "n": "n + 10000" } } ] }
      """#
    let kind = DataKind<DataWords1>(try compile(json), headsLimit: headsLimit)
    #expect((kind._heads != nil) == (headsLimit > 0))
    let machine = try runtime.spawn(
      DataMachine<DataWords1>.self, state: kind.initial, extra: DataKindHandle(kind),
      queues: kind.queues)
    var replies: [String] = []
    machine.observe { event in
      guard case .replied(let reply, _) = event else { return }
      switch reply {
      case .handled(let input, let from, let to):
        replies.append("\(input.index) \(from.leaf) \(to.leaf) \(to.context.array[0])")
      case .rejected(let input, let state):
        replies.append("rejected \(input.index) \(state.leaf)")
      }
    }
    for _ in 0..<3 {
      for name in ["x", "y", "z"] {
        #expect(machine.post(try #require(kind.codec.parseInput(name))) == .accepted)
        runtime.dispatch()
      }
    }
    #expect(
      replies == [
        "0 0 1 1", "1 1 2 11", "2 2 3 111",
        "0 3 4 1111", "rejected 1 4", "2 4 0 11111",
        "0 0 1 11112", "1 1 2 11122", "2 2 3 11222",
      ])
  }

  /// SCXML order with data: exit effects see the context before the row's assignments, the
  /// row's own effects and the entry effects see it after.
  @Test func exitEffectsSeeTheContextBeforeTheAssignments() throws {
    let json = #"""
      { "kind": "k", "initial": "a", "context": { "n": { "type": "int", "initial": 1 } },
        "states": [
          { "name": "a", "exit": [ { "emit": "left", "args": [ "n" ] } ] },
          { "name": "b", "entry": [ { "emit": "entered", "args": [ "n" ] } ] } ],
        "final": [ "b" ],
        "transitions": [
          { "on": "go", "from": "a", "to": "b", "assign": { "n": "n + 5" },
            "effects": [ { "emit": "moved", "args": [ "n" ] } ] } ] }
      """#
    let log = HostKindTests.EventLog()
    let machine = try host(json, log: log).spawn(kind: "k", name: "m", state: nil).get()
    _ = machine.post("go", tag: .none)
    runtime.dispatch()
    #expect(
      log.events.map(\.message) == [
        "go a b final", "emit left(1)", "emit moved(6)", "emit entered(6)",
      ])
  }
}
