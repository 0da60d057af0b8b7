import Millrace
import Testing

/// The README's nested-states example (a code-defined machine with `playing` and `paused`
/// inside `on`), kept here so that it keeps compiling and doing what the README says.
enum Player: PlainMachine {
  enum On { case playing, paused }
  enum State: Equatable { case off, on(On) }
  enum Input { case power, pause, play }
  typealias Output = String
  static func resolve(
    _ input: Input, state: inout State, effects: inout Effects<Self>
  ) -> Resolution {
    guard case .on(let child) = state else {  // top level: `off`
      guard input == .power else { return .rejected }
      effects.emit("poweredOn")  // entry of `on`
      state = .on(.playing)  // and its initial child
      return .handled
    }
    switch (input, child) {  // the leaf first ...
    case (.pause, .playing):
      state = .on(.paused)
      return .handled
    case (.play, .paused):
      state = .on(.playing)
      return .handled
    default: break
    }
    guard input == .power else { return .rejected }  // ... then its parent `on`
    effects.emit("poweredOff")  // exit of `on`
    state = .off
    return .handled
  }
}

@Suite struct NestedStateTests {
  @Test func anInputTheLeafDoesNotTakeFallsThroughToItsParent() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 1, inputsPerMachine: 8))
    let player = try runtime.spawn(Player.self, state: .off)
    let recorder = Recorder(player, in: runtime)
    for input in [Player.Input.play, .power, .pause, .pause, .play, .power] {
      _ = player.post(input)
    }
    runtime.dispatch()
    #expect(
      recorder.replies.map(\.isHandled) == [false, true, true, false, true, true])
    #expect(recorder.outputs == ["poweredOn", "poweredOff"])
    #expect(player.state == .off)
  }
}
