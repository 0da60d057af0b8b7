import Millrace

/// Records every event of the machines it observes, with the time it saw it.
final class Recorder<Input, State, Output> {
  typealias Event = MachineEvent<Input, State, Output>
  var events: [(at: Instant, event: Event)] = []
  let runtime: Runtime

  init<M: Machine>(_ handle: MachineHandle<M>, in runtime: Runtime)
  where M.Input == Input, M.State == State, M.Output == Output {
    self.runtime = runtime
    handle.observe { [unowned self, unowned runtime] event in
      self.events.append((runtime.now, event))
    }
  }

  var replies: [Reply<Input, State>] { events.compactMap { $0.event.reply } }
  var outputs: [Output] { events.compactMap { $0.event.output } }
}

extension Instant {
  static func ms(_ value: UInt64) -> Instant { Instant(nanoseconds: value * 1_000_000) }
}

enum AuthState: Equatable { case loggedOut, loggingIn, loggedIn, loggingOut }
enum AuthInput: Equatable { case login, loginOK, logout, logoutOK, forceLogout }
typealias AuthTable = Table<AuthInput, AuthState, Never>
typealias AuthReply = Reply<AuthInput, AuthState>

/// The Harvest login machine; with `delays`, login/logout/forceLogout start 1 s effects that
/// send loginOK/logoutOK on `queue` (queue 1 when `latest`).
func authTable(delays: Bool, latest: Bool = false) -> AuthTable {
  let queue: EffectQueue = latest ? EffectQueue(1) : .default
  func after(_ input: AuthInput) -> [Effect<AuthInput, Never>] {
    delays ? [.after(.seconds(1), input, queue: queue, id: "request")] : []
  }
  return AuthTable(
    queues: latest ? [.merge, .latest(max: 1)] : [.merge],
    rows: [
      .init(on: .login, from: .loggedOut, to: .loggingIn, effects: after(.loginOK)),
      .init(on: .loginOK, from: .loggingIn, to: .loggedIn),
      .init(on: .logout, from: .loggedIn, to: .loggingOut, effects: after(.logoutOK)),
      .init(on: .logoutOK, from: .loggingOut, to: .loggedOut),
      .init(
        on: .forceLogout, from: [.loggingIn, .loggedIn], to: .loggingOut,
        effects: after(.logoutOK)),
    ])
}
