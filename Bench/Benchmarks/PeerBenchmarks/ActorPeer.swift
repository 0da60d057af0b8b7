// Peer 3: the machine as a Swift actor. The caller is a task outside the actor, so every
// input is an `await` that enters the actor's executor (what a user of an actor-based store
// pays per input). Effects' inputs are queued inside the actor and run before `post` returns.

import BenchSupport

actor ActorCounter {
  private var state = 0
  private let reply: @Sendable (CounterReply) -> Void

  init(reply: @escaping @Sendable (CounterReply) -> Void) { self.reply = reply }

  func post(_ input: CounterInput) {
    switch input {
    case .increment:
      let from = state
      state = from &+ 1
      reply(CounterReply(from: from, to: state))
    }
  }
}

actor ActorAuth {
  private var state = AuthState.loggedOut
  private var feedback = InputRing(capacity: 16)
  private(set) var dropped = 0
  private let reply: @Sendable (AuthReply) -> Void

  init(reply: @escaping @Sendable (AuthReply) -> Void) { self.reply = reply }

  func post(_ input: AuthInput) {
    resolve(input)
    while let raw = feedback.pop() { resolve(AuthInput(rawValue: raw)!) }
  }

  private func resolve(_ input: AuthInput) {
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
