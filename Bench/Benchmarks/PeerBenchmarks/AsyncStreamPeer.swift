// Peer 4: the machine as a long-lived task consuming an AsyncStream of inputs. Producers
// `yield` (no await, unbounded buffer); the consumer task resolves inputs one by one. An
// iteration yields its inputs and then waits until the consumer has resolved all of them, so
// the time covers the hand-off between the two tasks as well as the work.

import BenchSupport

/// Shared by the producer (the benchmark task) and the consumer task. `remaining` and
/// `done` are written by the producer before it yields, and read by the consumer after it
/// received the yielded input: the stream's lock orders them. Hence `@unchecked Sendable`.
final class StreamMachine<Input: Sendable>: @unchecked Sendable {
  private let continuation: AsyncStream<Input>.Continuation
  private var consumer: Task<Void, Never>?
  private var remaining = 0
  private var done: CheckedContinuation<Void, Never>?

  /// `resolve` runs on the consumer task and returns how many inputs it resolved (the input
  /// itself plus any its effects fed back).
  init(resolve: @escaping @Sendable (Input) -> Int) {
    let (stream, continuation) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
    self.continuation = continuation
    consumer = Task { [unowned self] in
      for await input in stream {
        self.remaining -= resolve(input)
        if self.remaining == 0, let done = self.done {
          self.done = nil
          done.resume()
        }
      }
    }
  }

  deinit { continuation.finish() }

  /// Yields `inputs` and returns once `expected` inputs have been resolved.
  func run(_ inputs: some Sequence<Input>, expected: Int) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      self.remaining = expected
      self.done = done
      for input in inputs { continuation.yield(input) }
    }
  }
}

/// The consumer side of the counter.
final class StreamCounterCore: @unchecked Sendable {
  private var state = 0
  private let reply: (CounterReply) -> Void
  init(reply: @escaping (CounterReply) -> Void) { self.reply = reply }

  func resolve(_ input: CounterInput) -> Int {
    let from = state
    state = from &+ 1
    reply(CounterReply(from: from, to: state))
    return 1
  }
}

/// The consumer side of the auth machine; effects' inputs are resolved before the next
/// element of the stream (run to completion).
final class StreamAuthCore: @unchecked Sendable {
  private var state = AuthState.loggedOut
  private var feedback = InputRing(capacity: 16)
  private(set) var dropped = 0
  private let reply: (AuthReply) -> Void
  init(reply: @escaping (AuthReply) -> Void) { self.reply = reply }

  func resolve(_ input: AuthInput) -> Int {
    var count = 1
    step(input)
    while let raw = feedback.pop() {
      step(AuthInput(rawValue: raw)!)
      count += 1
    }
    return count
  }

  private func step(_ input: AuthInput) {
    let from = state
    if let (to, effect) = Auth.resolve(input, from) {
      state = to
      reply(AuthReply(input: input, from: from, to: to, handled: true))
      if let effect, !feedback.push(effect.rawValue) { dropped &+= 1 }
    } else {
      reply(AuthReply(input: input, from: from, to: from, handled: false))
    }
  }
}
