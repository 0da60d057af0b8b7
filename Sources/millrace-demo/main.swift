// A door machine driven by stdin lines: type open, close, lock, unlock (or quit). An opened
// door closes itself after 5 seconds unless closed by hand. Replies and outputs are printed.
// A stop-gap demo until the libuv loop drives it from stdin, a timer and a socket together.
import Millrace

enum Door: Machine {
  enum State: String { case closed, opened, locked }
  enum Input: String { case open, close, lock, unlock, autoClose }

  static func resolve(
    _ input: Input, state: inout State, extra: Void, effects: inout Effects<Input, String>
  ) -> Resolution {
    switch (input, state) {
    case (.open, .closed):
      state = .opened
      effects.after(.seconds(5), send: .autoClose, id: "autoclose")
    case (.close, .opened):
      state = .closed
      effects.cancel("autoclose")
    case (.autoClose, .opened):
      state = .closed
      effects.emit("closed itself")
    case (.lock, .closed): state = .locked
    case (.unlock, .locked): state = .closed
    default: return .rejected
    }
    return .handled
  }
}

let clock = ContinuousClock()
let start = clock.now
func elapsed() -> Instant {
  Instant(nanoseconds: UInt64(max(0, TimeSpan(clock.now - start).nanoseconds)))
}

let runtime = Runtime()
guard let door = runtime.spawn(Door.self, state: .closed) else { fatalError("no room") }
door.observe { event in
  switch event {
  case .replied(.success(let input, let from, let to), _):
    print("\(input.rawValue): \(from.rawValue) -> \(to.rawValue)")
  case .replied(.failure(let input, let state), _):
    print("rejected \(input.rawValue) in \(state.rawValue)")
  case .emitted(let output):
    print("door \(output)")
  }
}

print("door is closed; type open, close, lock, unlock or quit")
while let line = readLine() {
  runtime.advance(to: elapsed())
  runtime.dispatch()
  let word = line.trimmingPrefix(while: \.isWhitespace)
  if word == "quit" { break }
  guard let input = Door.Input(rawValue: String(word)) else {
    print("unknown input \(word)")
    continue
  }
  if door.post(input) != .accepted { print("busy") }
  runtime.dispatch()
}
