// Peer 2: the machine as a Harvest-style reactive pipeline on OpenCombine.
//
//   inputs (PassthroughSubject) ─ scan (state + transition) ─ share ─┬─ sink: reply observer
//                                                                   └─ compactMap(effect)
//                                                                      ─ map { Just(input) }
//                                                                      ─ switchToLatest   (the `latest(1)` "request" queue)
//                                                                      ─ sink: feed back
//
// This is Harvest's shape (`inamiy/Harvest`: a mapping `(input, state) -> (state, effect)?`
// scanned over the input stream, effects flattened per queue with flatMap / switchToLatest
// and their inputs fed back). Fed-back inputs are queued and sent after the current input has
// finished, not re-entrantly, which is the run-to-completion order every peer keeps.

import BenchSupport
import OpenCombine

/// The counter as `subject.scan.sink`.
final class CombineCounter {
  private let inputs = PassthroughSubject<CounterInput, Never>()
  private var subscriptions: [AnyCancellable] = []

  init(reply: @escaping (CounterReply) -> Void) {
    inputs
      .scan(CounterReply(from: 0, to: 0)) { last, _ in CounterReply(from: last.to, to: last.to &+ 1)
      }
      .sink(receiveValue: reply)
      .store(in: &subscriptions)
  }

  @inline(__always) func post(_ input: CounterInput) { inputs.send(input) }
}

/// The auth machine as a Harvest-style pipeline with an effect queue.
final class CombineAuth {
  /// What `scan` carries from one input to the next: the last transition.
  struct Step {
    var input: AuthInput
    var from: AuthState
    var to: AuthState
    var handled: Bool
    var effect: AuthInput?
  }

  private let inputs = PassthroughSubject<AuthInput, Never>()
  private var subscriptions: [AnyCancellable] = []
  private var feedback = InputRing(capacity: 16)
  private(set) var dropped = 0

  init(reply: @escaping (AuthReply) -> Void) {
    let steps =
      inputs
      .scan(Step(input: .logoutOK, from: .loggedOut, to: .loggedOut, handled: true, effect: nil)) {
        last, input in
        let from = last.to
        if let (to, effect) = Auth.resolve(input, from) {
          return Step(input: input, from: from, to: to, handled: true, effect: effect)
        }
        return Step(input: input, from: from, to: from, handled: false, effect: nil)
      }
      .share()

    // observers first: a reply is delivered before the effect of its input starts
    steps
      .sink { step in
        reply(AuthReply(input: step.input, from: step.from, to: step.to, handled: step.handled))
      }
      .store(in: &subscriptions)

    // the effect queue: each effect is a publisher of inputs; `latest(1)` = switchToLatest
    steps
      .compactMap(\.effect)
      .map { Just($0) }
      .switchToLatest()
      .sink { [unowned self] input in
        if !self.feedback.push(input.rawValue) { self.dropped &+= 1 }
      }
      .store(in: &subscriptions)
  }

  /// Posts one input and runs until no fed-back input is pending.
  @inline(__always) func post(_ input: AuthInput) {
    inputs.send(input)
    while let raw = feedback.pop() { inputs.send(AuthInput(rawValue: raw)!) }
  }
}
