// The Embedded Swift check: the core, built a second time with
// `-enable-experimental-feature Embedded`, linked with libc alone. It runs the auth machine
// on a latest queue and a periodic ticker with a simulated clock, prints each check, and
// exits non-zero if any fails. Built and run by `make embedded`.
import Millrace

enum AuthState: Equatable { case loggedOut, loggingIn, loggedIn, loggingOut }
enum AuthInput: Equatable { case login, loginOK, logout, logoutOK, forceLogout }

enum Ticker: PlainMachine {
  typealias Output = Int
  static func resolve(
    _ input: UInt8, state: inout Int, effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case 0: effects.every(.milliseconds(30), send: 1, id: "timer")
    case 1:
      state += 1
      effects.emit(state)
    case 2: effects.cancel("timer")
    default: return .rejected
    }
    return .handled
  }
}

var failures = 0
var checks = 0

func check(_ condition: Bool, _ what: StaticString) {
  checks += 1
  if condition {
    print("ok   ", terminator: "")
  } else {
    failures += 1
    print("FAIL ", terminator: "")
  }
  print(what)
}

func runChecks() {
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 4, inputsPerMachine: 8, timers: 16))
  let driver = ManualDriver(runtime: runtime)
  let table = Table<AuthInput, AuthState, Never>(
    queues: [.merge, .latest(max: 1)],
    rows: [
      .init(
        on: .login, from: .loggedOut, to: .loggingIn,
        effects: [.after(.seconds(1), .loginOK, queue: EffectQueue(1), id: "req")]),
      .init(on: .loginOK, from: .loggingIn, to: .loggedIn),
      .init(
        on: .forceLogout, from: [.loggingIn, .loggedIn], to: .loggingOut,
        effects: [.after(.seconds(1), .logoutOK, queue: EffectQueue(1), id: "req")]),
      .init(on: .logoutOK, from: .loggingOut, to: .loggedOut),
    ])
  guard let auth = try? runtime.spawn(table: table, state: .loggedOut) else {
    check(false, "spawn auth")
    return
  }
  var replies = 0
  var failed = 0
  auth.observe { event in
    guard let reply = event.reply else { return }
    replies += 1
    if !reply.isHandled { failed += 1 }
  }
  check(auth.post(.login) == .accepted, "post login accepted")
  driver.runUntilIdle()
  check(auth.state == .loggingIn, "login -> loggingIn")
  check(auth.post(.login) == .accepted, "second login posted")
  driver.advance(by: .milliseconds(500))
  check(failed == 1, "second login rejected")
  check(auth.post(.forceLogout) == .accepted, "forceLogout posted")
  driver.advance(by: .seconds(2))
  check(auth.state == .loggedOut, "latest queue: forceLogout cancelled login, logoutOK arrived")
  check(replies == 4, "one reply per input, no loginOK")

  guard let ticker = try? runtime.spawn(Ticker.self, state: 0) else {
    check(false, "spawn ticker")
    return
  }
  var lastOutput = 0
  ticker.observe { event in if let output = event.output { lastOutput = output } }
  _ = ticker.post(0)
  driver.advance(by: .milliseconds(100))
  check(ticker.state == 3 && lastOutput == 3, "every 30 ms: three ticks in 100 ms")
  _ = ticker.post(2)
  driver.advance(by: .seconds(1))
  check(ticker.state == 3, "cancelled timer never ticks again")
  check(runtime.nextDeadline == nil, "no timer left armed")
  runtime.remove(ticker)
  check(ticker.post(0) == .noMachine, "removed machine answers noMachine")
  for _ in 0..<8 { _ = auth.post(.logoutOK) }
  check(auth.post(.logoutOK) == .queueFull, "ninth post to a queue of 8 is refused")
  check(auth.statistics.queueHighWater == 8, "queue high-water mark is 8")
}

@_cdecl("main")
func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
  runChecks()
  print(checks - failures, terminator: "")
  print(" passed, ", terminator: "")
  print(failures, terminator: "")
  print(" failed")
  return failures == 0 ? 0 : 1
}
