import Millrace
import Testing

/// Input n records `Replayer.table`'s effects from n, as many as the input's count says.
enum Replayer: Machine {
  struct Input: Equatable { var start: Int, count: Int }
  typealias Extra = PrebuiltEffects<Input, Int>
  typealias Output = Int
  static func resolve(
    _ input: Input, state: inout Int, extra table: Extra, effects: inout Effects<Self>
  ) -> Resolution {
    effects.record(table, from: input.start, count: input.count)
    state += 1
    return .handled
  }
}

@Suite("Prebuilt effects")
struct PrebuiltEffectsTests {
  @Test("a range of prebuilt effects applies in order, like effects recorded one by one")
  func rangeApplies() throws {
    let table = try #require(
      PrebuiltEffects<Replayer.Input, Int>([
        .emit(1), .emit(2), .send(Replayer.Input(start: 0, count: 1)), .emit(3),
      ]))
    defer { table.deallocate() }
    #expect(table.count == 4)
    guard case .emit(2) = table[1] else {
      Issue.record("table[1] is \(table[1])")
      return
    }
    let runtime = Runtime()
    let machine = try runtime.spawn(Replayer.self, state: 0, extra: table)
    let recorder = Recorder(machine, in: runtime)
    // Effects 1...3: emit 2, send (which emits 1), emit 3; then the sent input's emit 1.
    _ = machine.post(Replayer.Input(start: 1, count: 3))
    runtime.dispatch()
    #expect(recorder.outputs == [2, 3, 1])
    #expect(recorder.replies.count == 2)
    // No effects at all is a range too.
    _ = machine.post(Replayer.Input(start: 4, count: 0))
    runtime.dispatch()
    #expect(recorder.outputs == [2, 3, 1])
    #expect(recorder.replies.count == 3)
  }

  @Test("effects past the buffer are dropped, counted and reported")
  func overflowIsCounted() throws {
    let table = try #require(PrebuiltEffects<Replayer.Input, Int>([.emit(1), .emit(2), .emit(3)]))
    defer { table.deallocate() }
    let runtime = Runtime(capacity: RuntimeCapacity(effectsPerResolution: 2))
    var diagnostics: [Diagnostic] = []
    runtime.onDiagnostic = { diagnostics.append($0) }
    let machine = try runtime.spawn(Replayer.self, state: 0, extra: table)
    let recorder = Recorder(machine, in: runtime)
    _ = machine.post(Replayer.Input(start: 0, count: 3))
    runtime.dispatch()
    #expect(recorder.outputs == [1, 2])
    #expect(diagnostics == [.effectBufferFull(machine.id, dropped: 1)])
    #expect(runtime.statistics.effectsOverflowed == 1)
  }

  @Test("a run effect is refused: a copy of its bytes would not retain the job")
  func runIsRefused() {
    let job = Job<Int> { [1] }
    #expect(PrebuiltEffects<Int, Int>([.emit(1), .run(job, queue: .default, id: .none)]) == nil)
  }
}
