// millrace-example: the small daemon the documentation's article "Building a small daemon"
// (MillraceUV.docc) builds. A stairwell light: `press` turns it on, and it goes off by itself
// 200 ms after the last press; `off` turns it off at once; `quiet` stops printing replies.
// Commands come from standard input, one per line; at the end of input the program waits for
// the light's timer, then exits:
//
//   printf 'press\npress\n' | swift run millrace-example
//
// IntegrationTests/ExampleProgramTests runs it so, and checks what it prints.
import Millrace
import MillraceUV

/// The light: a machine with two states, a timer on a queue of its own, and outputs.
enum StairLight: PlainMachine {
  enum State: String { case off, on }
  enum Input: String, Sendable { case press, off, timeout }
  typealias Output = String

  /// Two effect queues: `main` (raw value 0, the default) and `timer`, which keeps one timer
  /// at most, so that a new `after` on it replaces the one in flight.
  enum Queue: UInt8, EffectQueueSet {
    case main, timer
    var policy: QueuePolicy { self == .timer ? .latest(max: 1) : .merge }
  }

  /// How long the light stays on after the last press.
  static let onFor = TimeSpan.milliseconds(200)

  static func resolve(
    _ input: Input, state: inout State, effects: inout Effects<Self>
  ) -> Resolution {
    switch (input, state) {
    case (.press, .off):
      effects.emit("light on")
      effects.after(onFor, send: .timeout, on: .timer, id: "auto-off")
      state = .on
    case (.press, .on):
      // The `timer` queue is `latest(max: 1)`: this timer cancels the one in flight.
      effects.after(onFor, send: .timeout, on: .timer, id: "auto-off")
    case (.off, .on), (.timeout, .on):
      state = .off
      effects.cancel("auto-off")
      effects.emit("light off")
    default:
      return .rejected  // the state is restored and the effects discarded
    }
    return .handled
  }
}

/// One line for a reply.
func describe(_ reply: Reply<StairLight.Input, StairLight.State>) -> String {
  switch reply {
  case .handled(let input, let from, let to):
    return "\(input.rawValue): \(from.rawValue) -> \(to.rawValue)"
  case .rejected(let input, let state):
    return "\(input.rawValue): rejected in \(state.rawValue)"
  }
}

/// Serves commands from standard input until its end and the light's last timer; returns the
/// number of inputs the runtime resolved.
func serve() throws -> UInt64 {
  let loop = try EventLoop()
  let runtime = Runtime(capacity: RuntimeCapacity(machines: 4, timers: 4))
  let driver = RuntimeLoop(loop: loop, runtime: runtime)
  let light = try runtime.spawn(StairLight.self, state: .off)

  // Two observers, called in the order they were added: replies, until `quiet` cancels it,
  // and outputs, for the machine's life.
  let trace = light.observe { event in
    if let reply = event.reply { print(describe(reply)) }
  }
  light.observe { event in
    if let output = event.output { print(output) }
  }

  let input = try StdinLines(
    loop: loop,
    onLine: { line in
      let word = String(decoding: line, as: UTF8.self).filter { $0 != " " }
      if word == "quiet" {
        let stopped = trace?.cancel() ?? false
        print(stopped ? "quiet: replies no longer printed" : "quiet: already quiet")
      } else if let command = StairLight.Input(rawValue: word), command != .timeout {
        if light.post(command) != .accepted { print("\(word): refused, queue full") }
      } else if !word.isEmpty {
        print("unknown command \(word) (press, off, quiet)")
      }
    },
    onError: { print("stdin: \($0)") })
  if input.kind == .tty {
    print("commands: press, off, quiet; Ctrl-D to end")
  }
  // Ctrl-C stops the loop; unreferenced, the watcher does not keep the loop running.
  let interrupt = try SignalWatcher(loop: loop, signal: .interrupt) { _ in loop.stop() }
  interrupt.isUnreferenced = true

  // Returns when nothing is left to wait for: the input ended (its reader is done) and the
  // runtime has no timer armed (the driver's loop timer is stopped then).
  loop.run()
  let resolved = runtime.statistics.dispatched
  input.close()
  interrupt.close()
  driver.close()
  try loop.close()
  return resolved
}

let resolved = try serve()
print("bye: \(resolved) inputs resolved")
