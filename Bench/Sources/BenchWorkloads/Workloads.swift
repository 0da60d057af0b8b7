// The two workloads every peer (and, once the core lands, Millrace itself) runs, so that the
// figures can be put side by side. Each iteration of a per-input benchmark resolves exactly
// `BenchConfig.batch` inputs and delivers one reply per input to an observer.
//
// Counter: `increment` → state += 1 → reply. 1,000 inputs posted from outside per iteration.
//
// Auth (DESIGN.md §4.2's auth machine, the login/logout cycle):
//
//   loggedOut --login--> loggingIn --loginOK--> loggedIn --logout--> loggingOut --logoutOK--> loggedOut
//
// `login` and `logout` each start an effect that, in the real machine, sends `loginOK` /
// `logoutOK` after a delay on the `latest(1)` "request" queue. Here the effect is simulated
// synchronously: it feeds its input back to the same machine at once (queued behind the
// current input, run to completion), the way Millrace's `send(input)` effect does. So one
// cycle is 2 inputs posted from outside + 2 fed back by effects = 4 inputs resolved and
// 4 replies; an iteration is 250 cycles = 1,000 inputs.

/// Counter machine input.
public enum CounterInput: UInt8, Sendable {
  case increment
}

/// One reply of the counter: the state before and after.
public struct CounterReply: Sendable {
  public var from: Int
  public var to: Int
  @inlinable public init(from: Int, to: Int) {
    self.from = from
    self.to = to
  }
}

public enum AuthState: UInt8, Sendable {
  case loggedOut, loggingIn, loggedIn, loggingOut
}

public enum AuthInput: UInt8, Sendable {
  case login, loginOK, logout, logoutOK
}

/// One reply: `success(input, from, to)` or `failure(input, state)` (DESIGN.md §2.2).
public struct AuthReply: Sendable {
  public var input: AuthInput
  public var from: AuthState
  public var to: AuthState
  public var handled: Bool
  @inlinable public init(input: AuthInput, from: AuthState, to: AuthState, handled: Bool) {
    self.input = input
    self.from = from
    self.to = to
    self.handled = handled
  }
}

/// The auth machine's transition table as a `switch`: the practical limit of dispatch.
public enum Auth {
  /// The inputs posted from outside, in order; the effects supply the other two.
  public static let external: [AuthInput] = [.login, .logout]
  /// Cycles per iteration: 4 inputs resolved per cycle.
  public static let cyclesPerBatch = BenchConfig.batch / 4

  /// Resolves one input: the new state, and the input the effect of this transition feeds
  /// back (nil when the transition has no effect); nil result when no transition exists.
  @inlinable
  public static func resolve(_ input: AuthInput, _ state: AuthState)
    -> (to: AuthState, effect: AuthInput?)?
  {
    switch (input, state) {
    case (.login, .loggedOut): return (.loggingIn, .loginOK)
    case (.loginOK, .loggingIn): return (.loggedIn, nil)
    case (.logout, .loggedIn): return (.loggingOut, .logoutOK)
    case (.logoutOK, .loggingOut): return (.loggedOut, nil)
    default: return nil
    }
  }
}

/// The observer every peer delivers its replies to. It folds each reply into a checksum, so
/// that no reply can be optimised away, and counts them, so that each benchmark can check it
/// did the work it claims (`verify`). Used from one thread at a time (each peer hands it over
/// through its own synchronisation), hence `@unchecked Sendable`.
///
/// Its stored properties opt out of Swift's dynamic exclusivity checks: a class property
/// written in a loop otherwise costs a `swift_beginAccess` per write (about 3 ns each, and
/// three per reply here), which would be charged to every peer as "reply cost". A runtime
/// meant to dispatch in ~10 ns must avoid those on its own hot path too (see `make bench`'s
/// profile notes in results/latest.md).
public final class ReplySink: @unchecked Sendable {
  @exclusivity(unchecked) public private(set) var count = 0
  @exclusivity(unchecked) public private(set) var handled = 0
  @exclusivity(unchecked) public private(set) var checksum = 0

  public init() {}

  @inline(__always) public func counter(_ reply: CounterReply) {
    count &+= 1
    handled &+= 1
    checksum = checksum &* 31 &+ reply.to
  }

  @inline(__always) public func auth(_ reply: AuthReply) {
    count &+= 1
    if reply.handled { handled &+= 1 }
    checksum = checksum &* 31 &+ Int(reply.to.rawValue) &+ Int(reply.input.rawValue) << 3
  }

  /// Checks that exactly `expected` more replies arrived since the last call, all handled,
  /// then resets the counters. A peer that drops, duplicates or rejects inputs stops the run.
  public func verify(_ expected: Int, _ name: String) {
    precondition(
      count == expected && handled == expected,
      "\(name): \(count) replies, \(handled) handled, expected \(expected)")
    count = 0
    handled = 0
  }
}
