// Millrace's hot paths, each set up once and run by two measurers: the timed benchmarks
// (Benchmarks/MillraceBenchmarks: wall clock and mallocs, under ordo-one/benchmark) and the
// instruction counter (Sources/instructions: `valgrind --tool=callgrind`). One definition, so
// that the two can never measure different paths: whatever `measured()` does is what a
// benchmark iteration times and what callgrind counts; `prepare()` and `finish()` run outside
// both measurements (a benchmark's startMeasurement / stopMeasurement, callgrind's collection
// toggle).

import BenchWorkloads
import Foundation
import Millrace
import MillraceHost

/// Every hot path by name, made on demand (the 1 M timer rig reserves about 200 MB).
public enum HotPaths {
  /// Names in report order, with the function that sets each up.
  public static let all: [(name: String, make: @Sendable () -> any HotPath)] = [
    ("counter:millrace-code", { CounterPath() }),
    ("auth:millrace-code", { AuthCodePath() }),
    ("auth:millrace-table", { AuthTablePath() }),
    ("auth:millrace-data", { AuthDataPath() }),
    ("effect:start-after", { EffectStartAfterPath() }),
    ("effect:replace-latest", { EffectReplaceLatestPath() }),
    ("effect:queue-oldest", { EffectQueueOldestPath() }),
    ("effect:cancel", { EffectCancelPath() }),
    ("effect:cycle", { EffectCyclePath() }),
    ("timer:arm", { TimerArmPath() }),
    ("timer:cancel", { TimerCancelPath() }),
    ("timer:fire-1M", { TimerFirePath() }),
    ("spawn:code", { SpawnCodePath() }),
    ("spawn:table", { SpawnTablePath() }),
  ]

  /// The hot path called `name`, set up; nil for an unknown name.
  public static func make(_ name: String) -> (any HotPath)? {
    all.first { $0.name == name }?.make()
  }
}

// MARK: post + dispatch + resolve + reply

/// Folds one reply of an auth machine into `sink`, whatever the machine's own types.
@inline(__always)
func record<Input, State>(
  _ reply: Reply<Input, State>, into sink: ReplySink, input: (Input) -> AuthInput,
  state: (State) -> AuthState
) {
  switch reply {
  case .handled(let given, let from, let to):
    sink.auth(AuthReply(input: input(given), from: state(from), to: state(to), handled: true))
  case .rejected(let given, let current):
    sink.auth(
      AuthReply(input: input(given), from: state(current), to: state(current), handled: false))
  }
}

/// `counter:millrace-code`: post `increment`, dispatch, resolve, reply to an observer; 1,000
/// inputs per run.
public final class CounterPath: HotPath {
  /// The benchmark's name.
  public let name = "counter:millrace-code"
  /// Inputs per run.
  public let operations = BenchConfig.batch
  let sink = ReplySink()
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
  let counter: MachineHandle<CounterMachine>

  /// A runtime with one counter, observed by a `ReplySink`.
  public init() {
    counter = try! runtime.spawn(CounterMachine.self, state: 0)
    let sink = self.sink
    counter.observe { event in
      if case .replied(.handled(_, let from, let to), _) = event {
        sink.counter(CounterReply(from: from, to: to))
      }
    }
  }

  /// 1,000 inputs posted and dispatched one at a time.
  public func measured() {
    let (runtime, counter) = (self.runtime, self.counter)
    for _ in 0..<operations {
      precondition(counter.post(.increment) == .accepted)
      runtime.dispatch()
    }
  }

  /// Every input replied to and handled.
  public func finish() { sink.verify(operations, name) }
}

/// `auth:millrace-code`: the auth cycle on the code machine, `login` and `logout` posted,
/// `loginOK` and `logoutOK` fed back by their effects; 250 cycles = 1,000 inputs per run.
public final class AuthCodePath: HotPath {
  /// The benchmark's name.
  public let name = "auth:millrace-code"
  /// Inputs resolved per run (4 per cycle).
  public let operations = BenchConfig.batch
  let sink = ReplySink()
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
  let auth: MachineHandle<AuthMachine>

  /// A runtime with one auth machine, observed by a `ReplySink`.
  public init() {
    auth = try! runtime.spawn(AuthMachine.self, state: .loggedOut)
    let sink = self.sink
    auth.observe { event in
      guard case .replied(let reply, _) = event else { return }
      record(reply, into: sink, input: { $0 }, state: { $0 })
    }
  }

  /// 250 login → loginOK → logout → logoutOK cycles.
  public func measured() {
    let (runtime, auth) = (self.runtime, self.auth)
    for _ in 0..<Auth.cyclesPerBatch {
      _ = auth.post(.login)
      runtime.dispatch()
      _ = auth.post(.logout)
      runtime.dispatch()
    }
  }

  /// Every input replied to and handled.
  public func finish() { sink.verify(operations, name) }
}

/// `auth:millrace-table`: the same cycle on the machine loaded from a machine file (a table
/// of interned input and state indices; `send` stands in for the 1 s `after` as in the peers).
public final class AuthTablePath: HotPath {
  /// The benchmark's name.
  public let name = "auth:millrace-table"
  /// Inputs resolved per run (4 per cycle).
  public let operations = BenchConfig.batch
  let sink = ReplySink()
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
  let auth: MachineHandle<FileMachine>
  let login: FileMachine.Input
  let logout: FileMachine.Input

  /// The auth machine as a machine file (also spawned by `spawn:table`).
  static var definition: KindDefinition {
    let json = """
      {"kind": "auth", "initial": "loggedOut",
       "states": ["loggedOut", "loggingIn", "loggedIn", "loggingOut"],
       "transitions": [
         {"on": "login", "from": "loggedOut", "to": "loggingIn", "effects": [{"send": "loginOK"}]},
         {"on": "loginOK", "from": "loggingIn", "to": "loggedIn"},
         {"on": "logout", "from": "loggedIn", "to": "loggingOut", "effects": [{"send": "logoutOK"}]},
         {"on": "logoutOK", "from": "loggingOut", "to": "loggedOut"},
         {"on": "forceLogout", "from": ["loggingIn", "loggedIn"], "to": "loggingOut"}]}
      """
    return try! KindDefinition(json: Data(json.utf8), file: "auth.json")
  }

  /// The machine file above, loaded and spawned, observed by a `ReplySink`.
  public init() {
    let definition = AuthTablePath.definition
    let kind = FileKind(definition)
    login = definition.inputs.index(of: "login")!
    logout = definition.inputs.index(of: "logout")!
    auth = try! runtime.spawn(
      FileMachine.self, state: definition.initial, extra: kind, queues: kind.queues)
    let sink = self.sink
    auth.observe { event in
      guard case .replied(let reply, _) = event else { return }
      record(
        reply, into: sink, input: { AuthInput(rawValue: UInt8(truncatingIfNeeded: $0))! },
        state: { AuthState(rawValue: UInt8(truncatingIfNeeded: $0))! })
    }
  }

  /// 250 login → loginOK → logout → logoutOK cycles.
  public func measured() {
    authCycles(runtime, auth, login: login, logout: logout)
  }

  /// Every input replied to and handled.
  public func finish() { sink.verify(operations, name) }
}

/// 250 login → loginOK → logout → logoutOK cycles of `auth` (a file machine's or a data
/// machine's, specialized for each), dispatched after each post.
@inline(__always)
func authCycles<M: Machine>(
  _ runtime: Runtime, _ auth: MachineHandle<M>, login: M.Input, logout: M.Input
) {
  for _ in 0..<Auth.cyclesPerBatch {
    _ = auth.post(login)
    runtime.dispatch()
    _ = auth.post(logout)
    runtime.dispatch()
  }
}

/// `auth:millrace-data`: the same cycle, run exactly as `auth:millrace-table` runs it, on the
/// auth machine as a machine file with data (v2), so that every input it resolves is taken by
/// a row with a guard and an assignment (`DataMachine<DataWords1>`: a context of one `int`,
/// `login` with one `int` parameter). Its peer is `auth:millrace-table` on the same run
/// (DESIGN.md §6: a table machine with a guard and an assignment costs at most 1.5× a plain
/// table row).
public final class AuthDataPath: HotPath {
  /// The benchmark's name.
  public let name = "auth:millrace-data"
  /// Inputs resolved per run (4 per cycle).
  public let operations = BenchConfig.batch
  let sink = ReplySink()
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
  let auth: MachineHandle<DataMachine<DataWords1>>
  /// The kind, kept alive here: its machine holds it unretained.
  let kind: DataKind<DataWords1>
  let login: DataMachine<DataWords1>.Input
  let logout: DataMachine<DataWords1>.Input

  /// `auth:millrace-table`'s machine file with data: the same inputs, states, rows and
  /// effects, in the same order (so the same indices), and on each row of the cycle a guard
  /// (`login`'s on its parameter, the others' on the context) and an assignment to the
  /// context. `forceLogout` stays plain, as in the plain file.
  static var definition: KindDefinition {
    let json = """
      {"kind": "authData", "initial": "loggedOut",
       "context": {"count": {"type": "int"}},
       "inputs": [{"name": "login", "params": [{"name": "pin", "type": "int"}]},
                  "loginOK", "logout", "logoutOK", "forceLogout"],
       "states": ["loggedOut", "loggingIn", "loggedIn", "loggingOut"],
       "transitions": [
         {"on": "login", "from": "loggedOut", "to": "loggingIn", "guard": "pin == 1234",
          "assign": {"count": "count + 1"}, "effects": [{"send": "loginOK"}]},
         {"on": "loginOK", "from": "loggingIn", "to": "loggedIn", "guard": "count > 0",
          "assign": {"count": "count + 1"}},
         {"on": "logout", "from": "loggedIn", "to": "loggingOut", "guard": "count > 0",
          "assign": {"count": "count + 1"}, "effects": [{"send": "logoutOK"}]},
         {"on": "logoutOK", "from": "loggingOut", "to": "loggedOut", "guard": "count > 0",
          "assign": {"count": "count + 1"}},
         {"on": "forceLogout", "from": ["loggingIn", "loggedIn"], "to": "loggingOut"}]}
      """
    return try! KindDefinition(json: Data(json.utf8), file: "authData.json")
  }

  /// The machine file above, compiled as a data kind and spawned as `auth:millrace-table`
  /// spawns its file machine, observed by a `ReplySink` the same way.
  public init() {
    let definition = AuthDataPath.definition
    precondition(definition.data?.words == 1, "authData's values fit one word")
    let kind = DataKind<DataWords1>(definition)
    login = kind.codec.parseInput("login(1234)")!
    logout = kind.codec.parseInput("logout")!
    self.kind = kind
    auth = try! runtime.spawn(
      DataMachine<DataWords1>.self, state: kind.initial, extra: DataKindHandle(kind),
      queues: kind.queues)
    let sink = self.sink
    auth.observe { event in
      guard case .replied(let reply, _) = event else { return }
      record(
        reply, into: sink, input: { AuthInput(rawValue: UInt8(truncatingIfNeeded: $0.index))! },
        state: { AuthState(rawValue: UInt8(truncatingIfNeeded: $0.leaf))! })
    }
  }

  /// 250 login → loginOK → logout → logoutOK cycles.
  public func measured() {
    authCycles(runtime, auth, login: login, logout: logout)
  }

  /// Every input replied to and handled.
  public func finish() { sink.verify(operations, name) }
}

// MARK: effects

/// A runtime with one `EffectMachine`, and posting to it.
public class EffectRig {
  let runtime: Runtime
  let machine: MachineHandle<EffectMachine>

  /// One effect machine with room for `slots` in-flight effects (default: two batches).
  init(slots: Int = 2 * BenchConfig.batch) {
    let batch = BenchConfig.batch
    runtime = Runtime(
      capacity: RuntimeCapacity(
        machines: 4, inputsPerMachine: 2 * batch, effectsPerMachine: slots, timers: 4 * batch))
    machine = try! runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)
  }

  init(runtime: Runtime, machine: MachineHandle<EffectMachine>) {
    self.runtime = runtime
    self.machine = machine
  }

  /// Posts `input` and resolves it (with every effect it starts or cancels).
  @inline(__always)
  final func run(_ input: EffectMachine.Input) {
    precondition(machine.post(input) == .accepted)
    runtime.dispatch()
  }
}

/// `effect:start-after`: start one `after(60 s)` effect on the merge queue; 1,000 per run,
/// cancelled after the measurement.
public final class EffectStartAfterPath: EffectRig, HotPath {
  /// The benchmark's name.
  public let name = "effect:start-after"
  /// Effects started per run.
  public let operations = BenchConfig.batch

  /// One effect machine, room for two batches of effects.
  public init() { super.init() }

  /// 1,000 `arm` inputs, each starting one `after`.
  public func measured() {
    for _ in 0..<operations {
      run(.arm(queue: 0, id: 1, milliseconds: 60_000))
    }
  }

  /// Cancels the 1,000.
  public func finish() { run(.cancel(1)) }
}

/// `effect:replace-latest`: start an effect on a `latest(1)` queue that already holds one, which
/// replaces (cancels) it; 1,000 per run.
public final class EffectReplaceLatestPath: EffectRig, HotPath {
  /// The benchmark's name.
  public let name = "effect:replace-latest"
  /// Effects replaced per run.
  public let operations = BenchConfig.batch

  /// One effect machine with one effect in its `latest(1)` queue.
  public init() {
    super.init()
    run(.arm(queue: 1, id: 1, milliseconds: 60_000))
  }

  /// 1,000 `arm` inputs on queue 1.
  public func measured() {
    for _ in 0..<operations {
      run(.arm(queue: 1, id: 1, milliseconds: 60_000))
    }
  }

  /// The replaced effects were cancelled.
  public func finish() { precondition(runtime.statistics.effectsCancelled > 0) }
}

/// `effect:queue-oldest`: start an effect on a full `oldest(1, suspendNew)` queue, which
/// queues it; 1,000 per run, cancelled after the measurement.
public final class EffectQueueOldestPath: EffectRig, HotPath {
  /// The benchmark's name.
  public let name = "effect:queue-oldest"
  /// Effects queued per run.
  public let operations = BenchConfig.batch

  /// One effect machine whose `oldest(1, suspendNew)` queue is busy with one effect.
  public init() {
    super.init()
    run(.arm(queue: 2, id: 1, milliseconds: 60_000))
  }

  /// 1,000 `arm` inputs on queue 2.
  public func measured() {
    for _ in 0..<operations {
      run(.arm(queue: 2, id: 2, milliseconds: 60_000))
    }
  }

  /// Cancels the queued 1,000.
  public func finish() { run(.cancel(2)) }
}

/// Cancels measured alone: `prepare()` arms `operations` effects (ids 1..., after
/// `milliseconds(i)`), `measured()` cancels each by id (the input's post and dispatch, the scan
/// of the machine's slots, the timer's removal from the heap and the queue bookkeeping). A few
/// per run, not a batch of 1,000: cancel by id scans the machine's slots, and a real machine
/// has a handful.
public class CancelRig: EffectRig {
  /// Cancels per run.
  public let operations = 8
  let milliseconds: (Int) -> Int64
  var cancelledBefore: UInt64 = 0

  init(
    runtime: Runtime, machine: MachineHandle<EffectMachine>, milliseconds: @escaping (Int) -> Int64
  ) {
    self.milliseconds = milliseconds
    super.init(runtime: runtime, machine: machine)
  }

  /// Arms the effects the run cancels.
  public func prepare() {
    cancelledBefore = runtime.statistics.effectsCancelled
    for index in 0..<operations {
      run(.arm(queue: 0, id: UInt64(1 + index), milliseconds: milliseconds(index)))
    }
  }

  /// Cancels them one by one.
  public func measured() {
    for index in 0..<operations {
      run(.cancel(UInt64(1 + index)))
    }
  }

  /// All of them were cancelled.
  public func finish() {
    precondition(runtime.statistics.effectsCancelled == cancelledBefore + UInt64(operations))
  }
}

/// `effect:cancel`: cancel one effect by id on a machine with the default 16 effect slots,
/// 8 of them busy with other effects; 8 per run.
public final class EffectCancelPath: CancelRig, HotPath {
  /// The benchmark's name.
  public let name = "effect:cancel"

  /// The machine with its 8 other effects.
  public init() {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4, effectsPerMachine: 16))
    let machine = try! runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)
    super.init(runtime: runtime, machine: machine, milliseconds: { _ in 60_000 })
    for id in 10..<18 {
      run(.arm(queue: 0, id: UInt64(id), milliseconds: 60_000))
    }
  }
}

/// `effect:cycle`: start a 1 ms `after`, let the time pass, fire it and dispatch its input;
/// 1,000 per run. No budget of its own; held to "no allocation".
public final class EffectCyclePath: EffectRig, HotPath {
  /// The benchmark's name.
  public let name = "effect:cycle"
  /// Effects started and fired per run.
  public let operations = BenchConfig.batch
  var now: Instant

  /// One effect machine, its clock where the runtime starts.
  public init() {
    now = .zero
    super.init()
    now = runtime.now
  }

  /// 1,000 arm, advance, fire, dispatch.
  public func measured() {
    for _ in 0..<operations {
      run(.arm(queue: 0, id: 0, milliseconds: 1))
      now = now.advanced(by: .milliseconds(1))
      runtime.advance(to: now)
      runtime.dispatch()
    }
  }
}

// MARK: timers

/// `timer:arm`: arm a timer (an `after` at a spread deadline) into a heap that already holds
/// 10,000; 1,000 per run, cancelled after the measurement.
public final class TimerArmPath: EffectRig, HotPath {
  /// The benchmark's name.
  public let name = "timer:arm"
  /// Timers armed per run.
  public let operations = BenchConfig.batch
  var spread: Int64 = 0

  /// One effect machine with 10,000 timers armed.
  public init() {
    super.init(slots: 16 * BenchConfig.batch)
    for index in 0..<10_000 {
      run(.arm(queue: 0, id: 9, milliseconds: 60_000 + Int64(index)))
    }
  }

  /// 1,000 `arm` inputs at deadlines spread over 100 s.
  public func measured() {
    for _ in 0..<operations {
      spread = (spread &+ 7_919) % 100_000
      run(.arm(queue: 0, id: 1, milliseconds: 1_000 + spread))
    }
  }

  /// Cancels the 1,000.
  public func finish() { run(.cancel(1)) }
}

/// `timer:cancel`: cancel armed timers of a machine while 10,000 others (of 100 other machines)
/// sit in the heap; the cancelled ones are due before all of those. 8 per run.
public final class TimerCancelPath: CancelRig, HotPath {
  /// The benchmark's name.
  public let name = "timer:cancel"

  /// 100 machines with 100 timers each, and the machine whose timers are cancelled.
  public init() {
    let runtime = Runtime(
      capacity: RuntimeCapacity(machines: 128, effectsPerMachine: 128, timers: 16_384))
    for _ in 0..<100 {
      let other = try! runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)
      for index in 0..<100 {
        precondition(
          other.post(.arm(queue: 0, id: 9, milliseconds: 60_000 + Int64(index))) == .accepted)
        runtime.dispatch()
      }
    }
    let machine = try! runtime.spawn(EffectMachine.self, state: 0, queues: EffectMachine.layout)
    super.init(runtime: runtime, machine: machine, milliseconds: { 30_000 + Int64($0) })
  }
}

/// `timer:fire-1M`: 1,000 machines × 1,000 timers each fire when time passes them; per fire,
/// the timer's pop, its input queued, and that input's dispatch. `prepare()` arms the million.
public final class TimerFirePath: HotPath {
  /// The benchmark's name.
  public let name = "timer:fire-1M"
  /// Fires per run.
  public let operations = 1_000_000
  let runtime: Runtime
  let machines: [MachineHandle<EffectMachine>]
  var now: Instant

  /// 1,000 machines with room for 1,000 inputs, effects and timers each.
  public init() {
    let count = 1_000
    runtime = Runtime(
      capacity: RuntimeCapacity(
        machines: count, inputsPerMachine: 1_000, effectsPerMachine: 1_000,
        timers: count * 1_000))
    let runtime = self.runtime
    machines = (0..<count).map { _ in try! runtime.spawn(EffectMachine.self, state: 0) }
    now = runtime.now
  }

  /// Arms 1,000 timers on each machine, due in 1–100 ms, and moves the clock 1 s on.
  public func prepare() {
    for machine in machines {
      for index in 0..<1_000 {
        _ = machine.post(.arm(queue: 0, id: 0, milliseconds: 1 + Int64(index % 100)))
      }
    }
    while runtime.hasPendingInputs { runtime.dispatch() }
    now = now.advanced(by: .seconds(1))
  }

  /// Lets the time pass: every timer fires, and every input it queues is dispatched.
  public func measured() {
    runtime.advance(to: now)
    while runtime.hasPendingInputs { runtime.dispatch() }
  }

  /// Every timer fired.
  public func finish() { precondition(runtime.statistics.timers == 0) }
}

// MARK: spawn

/// Spawns measured alone: `measured()` spawns `operations` machines into a runtime that
/// already has their kind, `finish()` removes them. Blocks come from bytes the runtime
/// reserved (`RuntimeCapacity.blockBytes`), so no spawn allocates after the warm-up. No
/// budget of its own (DESIGN.md §6 budgets the daemon's 1,000,000 spawns in time); shown.
public class SpawnRig<M: Machine> {
  /// Spawns per run.
  public let operations = BenchConfig.batch
  let runtime: Runtime
  let spawn: (Runtime) throws -> MachineHandle<M>
  @exclusivity(unchecked) var handles: [MachineHandle<M>] = []

  init(_ spawn: @escaping (Runtime) throws -> MachineHandle<M>) {
    runtime = Runtime(
      capacity: RuntimeCapacity(machines: 2 * BenchConfig.batch, blockBytes: 256 << 10))
    self.spawn = spawn
    handles.reserveCapacity(operations)
  }

  /// `operations` spawns.
  public func measured() {
    let runtime = self.runtime
    for _ in 0..<operations { handles.append(try! spawn(runtime)) }
  }

  /// Removes them.
  public func finish() {
    for handle in handles { runtime.remove(handle) }
    handles.removeAll(keepingCapacity: true)
    precondition(runtime.statistics.machines == 0)
  }
}

/// `spawn:code`: spawn a counter (a code machine, its type's own queues).
public final class SpawnCodePath: SpawnRig<CounterMachine>, HotPath {
  /// The benchmark's name.
  public let name = "spawn:code"

  /// A runtime with room for two batches of counters.
  public init() { super.init { try $0.spawn(CounterMachine.self, state: 0) } }
}

/// `spawn:table`: spawn the auth machine of a machine file, with the kind's queues named at
/// each spawn as the daemon does.
public final class SpawnTablePath: SpawnRig<FileMachine>, HotPath {
  /// The benchmark's name.
  public let name = "spawn:table"

  /// A runtime with room for two batches of file machines.
  public init() {
    let definition = AuthTablePath.definition
    let kind = FileKind(definition)
    let queues = kind.queues
    super.init {
      try $0.spawn(FileMachine.self, state: definition.initial, extra: kind, queues: queues)
    }
  }
}
