// The workloads of BenchSupport written as Millrace machines, plus a machine whose inputs
// start and cancel effects, for the effect and timer benchmarks.
//
// Resolvers are `@inline(__always)`, as `Machine.resolve` advises for small resolvers on a hot
// path (and as MillraceHost's `FileMachine` does): the compiler inlined the counter's on its
// own but made the auth machine's a call; the peers inline `Auth.resolve` in their loops.

import BenchSupport
import Millrace

/// The counter: `increment` → state + 1.
enum CounterMachine: Machine {
  @inline(__always)
  static func resolve(
    _ input: CounterInput, state: inout Int, extra: Void,
    effects: inout Effects<CounterInput, Never>
  ) -> Resolution {
    state &+= 1
    return .handled
  }
}

/// The auth machine; `login` / `logout` feed `loginOK` / `logoutOK` back with `send`.
enum AuthMachine: Machine {
  @inline(__always)
  static func resolve(
    _ input: AuthInput, state: inout AuthState, extra: Void,
    effects: inout Effects<AuthInput, Never>
  ) -> Resolution {
    guard let (to, effect) = Auth.resolve(input, state) else { return .rejected }
    state = to
    if let effect { effects.send(effect) }
    return .handled
  }
}

/// Starts and cancels effects: `arm(queue, id, ms)` starts `after(ms, fired)` on `queue` with
/// `id`; `cancel(id)` cancels it; `fired` counts.
enum EffectMachine: Machine {
  enum Input {
    case arm(queue: UInt8, id: UInt64, milliseconds: Int64)
    case cancel(UInt64)
    case fired
  }

  static func resolve(
    _ input: Input, state: inout Int, extra: Void, effects: inout Effects<Input, Never>
  ) -> Resolution {
    switch input {
    case .arm(let queue, let id, let milliseconds):
      effects.after(
        .milliseconds(milliseconds), send: .fired, on: EffectQueue(queue),
        id: EffectID(rawValue: id))
    case .cancel(let id):
      effects.cancel(EffectID(rawValue: id))
    case .fired:
      state &+= 1
    }
    return .handled
  }

  /// Queue 0 merge, 1 latest(1), 2 oldest(1, suspendNew).
  static let layout: [QueuePolicy] = [.merge, .latest(max: 1), .oldest(max: 1, .suspendNew)]
}
