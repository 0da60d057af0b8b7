import Millrace
import Testing

/// Emits each reading it is given.
enum Sensor: Machine {
  typealias Output = Int
  static func resolve(
    _ input: Int, state: inout Int, extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    state = input
    effects.emit(input)
    return .handled
  }
}

/// Switches a heater on above a threshold.
enum Controller: Machine {
  enum Input: Equatable { case reading(Int) }
  static func resolve(
    _ input: Input, state: inout Bool, extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    guard case .reading(let value) = input else { return .rejected }
    state = value > 20
    return .handled
  }
}

/// `save(v)` emits `v`; `initialize(v)` stores it.
enum Storage: Machine {
  enum Input: Equatable { case save(Int), initialize(Int) }
  typealias Output = Int
  static func resolve(
    _ input: Input, state: inout Int, extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .save(let value): effects.emit(value)
    case .initialize(let value): state = value
    }
    return .handled
  }
}

@Suite("Wiring")
struct WiringTests {
  @Test("outward routes a sensor's readings into a controller")
  func outward() throws {
    let runtime = Runtime()
    let sensor = try runtime.spawn(Sensor.self, state: 0)
    let controller = try runtime.spawn(Controller.self, state: false)
    runtime.outward(from: sensor, to: controller) { Controller.Input.reading($0) }
    let recorder = Recorder(controller, in: runtime)
    _ = sensor.post(25)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(controller.state == true)
    _ = sensor.post(10)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(controller.state == false)
    #expect(recorder.replies.map(\.input) == [.reading(25), .reading(10)])
  }

  @Test("outward can fan one output into several inputs, or none")
  func outwardMany() throws {
    let runtime = Runtime()
    let sensor = try runtime.spawn(Sensor.self, state: 0)
    let controller = try runtime.spawn(Controller.self, state: false)
    let recorder = Recorder(controller, in: runtime)
    runtime.outward(from: sensor, to: controller) { value, send in
      for step in 0..<value { send(.reading(step)) }
    }
    _ = sensor.post(0)
    _ = sensor.post(2)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(recorder.replies.map(\.input) == [.reading(0), .reading(1)])
  }

  @Test("redirect feeds an output back as an input instead of emitting it")
  func redirect() throws {
    let runtime = Runtime()
    let storage = try runtime.spawn(Storage.self, state: 0)
    let recorder = Recorder(storage, in: runtime)
    runtime.redirect(storage) { value in value >= 0 ? .back(.initialize(value)) : .pass }
    _ = storage.post(.save(42))
    _ = storage.post(.save(-1))
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(storage.state == 42)
    #expect(recorder.outputs == [-1])
    #expect(recorder.replies.map(\.input) == [.save(42), .save(-1), .initialize(42)])
  }

  @Test("inward adapts outer inputs and merge broadcasts to several machines")
  func inwardAndMerge() throws {
    let runtime = Runtime()
    let first = try runtime.spawn(Controller.self, state: false)
    let second = try runtime.spawn(Controller.self, state: false)
    let sensor = try runtime.spawn(Sensor.self, state: 0)
    let celsius: InputPort<Double> = runtime.inward(to: first) { .reading(Int($0)) }
    let all = runtime.merge([
      runtime.inward(to: second) { .reading($0) }, runtime.inward(to: first) { .reading($0) },
      sensor.port,
    ])
    #expect(all.post(30) == .accepted)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(first.state == true && second.state == true && sensor.state == 30)
    #expect(celsius.post(12.5) == .accepted)
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(first.state == false && second.state == true)
    runtime.remove(sensor)
    #expect(all.post(1) == .noMachine)
  }

  @Test("a full target queue is reported as a route overflow")
  func routeOverflow() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(inputsPerMachine: 1))
    var diagnostics: [Diagnostic] = []
    runtime.onDiagnostic = { diagnostics.append($0) }
    let sensor = try runtime.spawn(Sensor.self, state: 0, inputCapacity: 4)
    let controller = try runtime.spawn(Controller.self, state: false)
    runtime.outward(from: sensor, to: controller) { value, send in
      send(.reading(value))
      send(.reading(value))
    }
    _ = sensor.post(1)
    runtime.dispatch(limit: 1)
    #expect(diagnostics == [.inputQueueFull(controller.id, .route)])
    #expect(controller.statistics.dropped == 1)
  }

  @Test("wiring a machine of another runtime stops the program", arguments: [0, 1, 2, 3])
  func otherRuntime(_ call: Int) async {
    await #expect(processExitsWith: .failure) { [call] in
      let (runtime, other) = (Runtime(), Runtime())
      guard let sensor = try? runtime.spawn(Sensor.self, state: 0),
        let foreign = try? other.spawn(Storage.self, state: 0),
        let own = try? runtime.spawn(Storage.self, state: 0)
      else { return }
      switch call {
      case 0: runtime.outward(from: sensor, to: foreign) { Storage.Input.initialize($0) }
      case 1: other.outward(from: foreign, to: own) { Storage.Input.initialize($0) }
      case 2: runtime.redirect(foreign) { .back(.initialize($0)) }
      default: _ = runtime.inward(to: foreign) { (value: Int) in Storage.Input.save(value) }
      }
    }
  }
}
