// The workloads of BenchSupport written as Millrace machines, plus a machine whose inputs
// start and cancel effects, for the effect and timer benchmarks.
//
// Resolvers are `@inline(__always)`, as `Machine.resolve` advises for small resolvers on a hot
// path (and as MillraceHost's `FileMachine` does): the compiler inlined the counter's on its
// own but made the auth machine's a call; the peers inline `Auth.resolve` in their loops.
// They are also `@inlinable`, so that a module outside this one (the memory benchmark spawns
// counters) can specialize on them as well as this one (HotPaths.swift) does.

import BenchWorkloads
import Millrace

/// The counter: `increment` → state + 1.
public enum CounterMachine: PlainMachine {
  /// Adds one to the state.
  @inlinable @inline(__always)
  public static func resolve(
    _ input: CounterInput, state: inout Int, effects: inout Effects<Self>
  ) -> Resolution {
    state &+= 1
    return .handled
  }
}

/// The auth machine; `login` / `logout` feed `loginOK` / `logoutOK` back with `send`.
public enum AuthMachine: PlainMachine {
  /// `Auth.resolve`, its effect input sent back to the machine.
  @inlinable @inline(__always)
  public static func resolve(
    _ input: AuthInput, state: inout AuthState, effects: inout Effects<Self>
  ) -> Resolution {
    guard let (to, effect) = Auth.resolve(input, state) else { return .rejected }
    state = to
    if let effect { effects.send(effect) }
    return .handled
  }
}

/// Starts and cancels effects: `arm(queue, id, ms)` starts `after(ms, fired)` on `queue` with
/// `id`; `cancel(id)` cancels it; `fired` counts.
public enum EffectMachine: PlainMachine {
  /// What the effect and timer benchmarks post.
  public enum Input {
    /// Start `after(milliseconds, fired)` on `queue` with `id`.
    case arm(queue: UInt8, id: UInt64, milliseconds: Int64)
    /// Cancel the effects with this id.
    case cancel(UInt64)
    /// An `after` effect's input: counted.
    case fired
  }

  /// Queues by position: the benchmarks give the layout at spawn.
  public typealias Queue = EffectQueue

  /// Starts, cancels or counts.
  @inlinable @inline(__always)
  public static func resolve(
    _ input: Input, state: inout Int, effects: inout Effects<Self>
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
  public static let layout: [QueuePolicy] = [.merge, .latest(max: 1), .oldest(max: 1, .suspendNew)]
}
