// millrace-demo: a traffic light driven by three input sources at once, on one libuv loop:
// - a periodic loop timer posts `tick` every second (red → green → yellow → red);
// - stdin lines post commands (`flash`, `resume`, `quit`);
// - a Unix socket (line framing, path in argv[1], default ./.millrace/demo.sock) takes the
//   same commands from `nc -U` or `socat`, and answers each with the transition.
// Every transition and output is printed. Try: `swift run millrace-demo`, then in another
// terminal `echo flash | nc -U .millrace/demo.sock`.
import Millrace
import MillraceUV

enum TrafficLight: PlainMachine {
  enum State: String { case red, green, yellow, flashing }
  enum Input: String { case tick, flash, resume }

  typealias Output = String
  static func resolve(
    _ input: Input, state: inout State, effects: inout Effects<Self>
  ) -> Resolution {
    switch (input, state) {
    case (.tick, .red): state = .green
    case (.tick, .green): state = .yellow
    case (.tick, .yellow): state = .red
    case (.flash, .red), (.flash, .green), (.flash, .yellow): state = .flashing
    case (.resume, .flashing): state = .red
    default: return .rejected
    }
    effects.emit(state.rawValue)
    return .handled
  }
}

/// The reply line for one input's reply.
func describe(_ reply: Reply<TrafficLight.Input, TrafficLight.State>) -> String {
  switch reply {
  case .handled(let input, let from, let to):
    return "\(input.rawValue): \(from.rawValue) -> \(to.rawValue)"
  case .rejected(let input, let state): return "rejected \(input.rawValue) in \(state.rawValue)"
  }
}

/// The demo: one loop, one machine, three input sources.
final class Demo {
  let loop: EventLoop
  let runtime = Runtime()
  let driver: RuntimeLoop
  let light: MachineHandle<TrafficLight>
  /// Socket requests waiting for their reply, by post tag.
  var waiting: [UInt64: (Connection, Connection.ReplySlot)] = [:]
  var nextTag: UInt64 = 0

  init() throws {
    loop = try EventLoop()
    driver = RuntimeLoop(loop: loop, runtime: runtime)
    let light = try runtime.spawn(TrafficLight.self, state: .red)
    self.light = light
    light.observe { [unowned self] event in
      switch event {
      case .replied(let reply, let tag):
        print(describe(reply))
        if let (connection, slot) = waiting.removeValue(forKey: tag.rawValue) {
          _ = connection.complete(slot, with: Array((describe(reply) + "\n").utf8))
        }
      case .emitted(let colour):
        print("light is \(colour)")
      }
    }
  }

  /// Posts a command word from stdin or the socket; `quit` stops the loop.
  func command(_ word: String, from connection: Connection? = nil) {
    if word == "quit" {
      print("bye")
      loop.stop()
      return
    }
    guard let input = TrafficLight.Input(rawValue: word), input != .tick else {
      print("unknown command \(word) (flash, resume, quit)")
      _ = connection?.write(Array("unknown command \(word)\n".utf8))
      return
    }
    nextTag += 1
    guard light.post(input, tag: PostTag(nextTag)) == .accepted else {
      _ = connection?.write(Array("busy\n".utf8))
      return
    }
    if let connection { waiting[nextTag] = (connection, connection.reserveReply()) }
  }

  /// Serves until `quit`, end of stdin, or SIGINT.
  func run(socketPath: String) throws {
    let ticker = LoopTimer(loop: loop) { [light] _ in _ = light.post(.tick) }
    ticker.start(after: .seconds(1), repeat: .seconds(1))
    let stdin = try StdinLines(
      loop: loop,
      onLine: { [unowned self] line in
        command(String(decoding: line, as: UTF8.self).filter { $0 != " " })
      },
      onEnd: { [loop] in loop.stop() },
      onError: { print("stdin: \($0)") })
    let interrupt = try SignalWatcher(loop: loop, signal: .interrupt) { [loop] _ in loop.stop() }
    var configuration = StreamServer.Configuration(framing: .lines)
    configuration.maxFrameLength = 256
    let server = try StreamServer(
      loop: loop, address: .unix(path: socketPath), configuration: configuration,
      onFrame: { [unowned self] connection, frame in
        command(frame.string(at: 0), from: connection)
      })
    print("traffic light on a 1 s timer; commands on stdin or \(socketPath): flash, resume, quit")
    loop.run()
    for resource in [server.close, stdin.close, interrupt.close, ticker.close, driver.close] {
      resource()
    }
    try loop.close()
  }
}

let socketPath =
  CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ".millrace/demo.sock"
try Demo().run(socketPath: socketPath)
