// Peer 1, the practical limit: a fixed ring buffer of inputs and a `switch` loop.
// No generics, no existentials, no allocation after init: what a hand-written C-style event
// loop does. Millrace's post → dispatch → resolve → reply is measured against this.
//
// The machines' stored properties are `@exclusivity(unchecked)`: without it every `ring.push`,
// `ring.pop` and `state` write on a class costs a dynamic exclusivity check (swift_beginAccess,
// ~3 ns), which the profile showed was most of the time; a hand-written loop in C has none,
// and the limit should not either. Single-threaded by construction, so nothing is lost.

import BenchSupport

/// A fixed-capacity FIFO of one-byte inputs (capacity a power of two, allocated once).
struct InputRing: ~Copyable {
  private let slots: UnsafeMutablePointer<UInt8>
  private let mask: Int
  private var head = 0  // next to pop
  private var tail = 0  // next to push

  init(capacity: Int) {
    precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
    slots = .allocate(capacity: capacity)
    mask = capacity - 1
  }

  deinit { slots.deallocate() }

  /// False when full: the caller must look (DESIGN §2.4: overflow is never silent).
  @inline(__always) mutating func push(_ value: UInt8) -> Bool {
    if tail &- head > mask { return false }
    slots[tail & mask] = value
    tail &+= 1
    return true
  }

  @inline(__always) mutating func pop() -> UInt8? {
    if head == tail { return nil }
    let value = slots[head & mask]
    head &+= 1
    return value
  }
}

/// The counter as ring + switch.
final class RingCounter {
  @exclusivity(unchecked) private var ring = InputRing(capacity: 16)
  @exclusivity(unchecked) private(set) var state = 0
  private let reply: (CounterReply) -> Void

  init(reply: @escaping (CounterReply) -> Void) { self.reply = reply }

  @inline(__always) func post(_ input: CounterInput) -> Bool { ring.push(input.rawValue) }

  /// Runs until the queue is empty (run-to-completion, one input at a time).
  @inline(__always) func run() {
    while let raw = ring.pop() {
      switch CounterInput(rawValue: raw) {
      case .increment:
        let from = state
        state = from &+ 1
        reply(CounterReply(from: from, to: state))
      case nil:
        preconditionFailure("bad input \(raw)")
      }
    }
  }
}

/// The auth machine as ring + switch; effects feed their input back through the same ring.
final class RingAuth {
  @exclusivity(unchecked) private var ring = InputRing(capacity: 16)
  @exclusivity(unchecked) private(set) var state = AuthState.loggedOut
  @exclusivity(unchecked) private(set) var dropped = 0
  private let reply: (AuthReply) -> Void

  init(reply: @escaping (AuthReply) -> Void) { self.reply = reply }

  @inline(__always) func post(_ input: AuthInput) -> Bool { ring.push(input.rawValue) }

  @inline(__always) func run() {
    while let raw = ring.pop() {
      let input = AuthInput(rawValue: raw)!
      let from = state
      if let (to, effect) = Auth.resolve(input, from) {
        state = to
        reply(AuthReply(input: input, from: from, to: to, handled: true))
        // effects start after the reply (DESIGN §2.2); `send` queues behind this input
        if let effect, !ring.push(effect.rawValue) { dropped &+= 1 }
      } else {
        reply(AuthReply(input: input, from: from, to: from, handled: false))
      }
    }
  }
}

/// A ring + `switch` machine with its workload: one batch of the benchmark's inputs, posted and
/// run one at a time.
protocol RingWorkload: AnyObject {
  /// The benchmark's name.
  static var name: String { get }
  /// A machine replying to `sink`.
  init(sink: ReplySink)
  /// One batch (`BenchConfig.batch` inputs resolved).
  func runBatch()
  /// Inputs an effect could not post back (always 0 in a correct run).
  var dropped: Int { get }
}

extension RingCounter: RingWorkload {
  static var name: String { "counter:ring-switch" }
  convenience init(sink: ReplySink) { self.init(reply: sink.counter) }
  var dropped: Int { 0 }

  /// 1,000 `increment`s.
  func runBatch() {
    for _ in 0..<BenchConfig.batch {
      precondition(post(.increment), "queue full")
      run()
    }
  }
}

extension RingAuth: RingWorkload {
  static var name: String { "auth:ring-switch" }
  convenience init(sink: ReplySink) { self.init(reply: sink.auth) }

  /// 250 login → loginOK → logout → logoutOK cycles.
  func runBatch() {
    for _ in 0..<Auth.cyclesPerBatch {
      precondition(post(.login), "queue full")
      run()
      precondition(post(.logout), "queue full")
      run()
    }
  }
}

/// A ring + `switch` workload as a hot path: timed alone (`counter:ring-switch`,
/// `auth:ring-switch`), and as the peer Millrace's dispatch rows are timed in pairs with.
final class RingPath<Workload: RingWorkload>: HotPath {
  let name = Workload.name
  let operations = BenchConfig.batch
  let sink = ReplySink()
  let machine: Workload

  init() { machine = Workload(sink: sink) }

  func measured() { machine.runBatch() }

  func finish() {
    sink.verify(operations, name)
    precondition(machine.dropped == 0)
  }
}
