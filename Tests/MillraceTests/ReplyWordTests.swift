import Testing

@testable import Millrace

/// Replies of machines whose inputs and states are plain values of one or two bytes are written
/// as one word (`_ReplyWord`), not by Swift's enum layout code: these tests fail where the two
/// disagree, for every shape of input and state the word takes.
@Suite("Reply words")
struct ReplyWordTests {
  enum Light: UInt8, Equatable { case red, amber, green }
  enum Press: Equatable { case short, long, double }
  struct Pair: Equatable {
    var high: UInt8
    var flag: Bool
  }

  /// A machine of inputs `Input` and states `State` that moves to the state `next` gives for
  /// an input, or rejects it where `next` gives nil.
  enum Mover<Input, State, Output>: Machine {
    typealias Extra = (Input) -> State?

    static func resolve(
      _ input: Input, state: inout State, extra next: Extra, effects: inout Effects<Self>
    ) -> Resolution {
      guard let to = next(input) else { return .rejected }
      state = to
      return .handled
    }
  }

  /// What an observer sees, written out so that every field is compared.
  static func describe<Input, State, Output>(_ event: MachineEvent<Input, State, Output>) -> String
  {
    switch event {
    case .replied(.handled(let input, let from, let to), let tag):
      return "handled \(input) \(from)->\(to) tag \(tag.rawValue)"
    case .replied(.rejected(let input, let state), let tag):
      return "rejected \(input) in \(state) tag \(tag.rawValue)"
    case .emitted(let output):
      return "emitted \(output)"
    }
  }

  /// Builds the word events of `input`, `from` and `to` and compares them, field by field, with
  /// the events Swift builds.
  static func expectSameEvents<Input, State, Output>(
    _ input: Input, from: State, to: State, output: Output.Type
  ) {
    typealias Event = MachineEvent<Input, State, Output>
    let tag = PostTag(0x8877_6655_4433_2211)
    let handled: Event = _ReplyWord.event(_ReplyWord.handled(input, from: from, to: to), tag: tag)
    let rejected: Event = _ReplyWord.event(_ReplyWord.rejected(input, state: from), tag: tag)
    #expect(
      describe(handled) == describe(Event.replied(.handled(input, from: from, to: to), tag: tag)))
    #expect(describe(rejected) == describe(Event.replied(.rejected(input, state: from), tag: tag)))
  }

  @Test("a word built event reads back as the enum built one, for each shape that takes it")
  func layouts() {
    Self.expectSameEvents(
      UInt16(0xFFFE), from: UInt16(0x0102), to: UInt16(0xA0B0), output: UInt16.self)
    Self.expectSameEvents(Press.double, from: Light.amber, to: Light.green, output: Never.self)
    Self.expectSameEvents(Press.long, from: UInt16(0xBEEF), to: UInt16(7), output: Bool.self)
    Self.expectSameEvents(UInt16(0x1234), from: Light.green, to: Light.red, output: String.self)
    Self.expectSameEvents(
      Pair(high: 0xFF, flag: true), from: Int8(-1), to: Int8(5), output: Int.self)
    Self.expectSameEvents(
      UInt8(9), from: Pair(high: 1, flag: false), to: Pair(high: 2, flag: true),
      output: (Int, Int).self)
  }

  @Test("only plain inputs and states of one or two bytes, and outputs of 16 bytes at most")
  func chosenByType() {
    #expect(Mover<UInt16, UInt16, UInt16>._repliesAsWord)
    #expect(Mover<Press, Light, Never>._repliesAsWord)
    #expect(Mover<Pair, Int8, (Int, Int)>._repliesAsWord)
    #expect(!Mover<UInt32, UInt16, Never>._repliesAsWord)
    #expect(!Mover<UInt16, Int, Never>._repliesAsWord)
    #expect(!Mover<UInt16, UInt16, (Int, Int, Int)>._repliesAsWord)
    #expect(!Mover<String, UInt8, Never>._repliesAsWord)
  }

  @Test("observers of a machine and of its type see each reply's input, states and tag")
  func dispatched() throws {
    typealias Machine = Mover<Press, Light, Never>
    let runtime = Runtime()
    let next: (Press) -> Light? = { [.short: .amber, .long: .green][$0] }
    let machine = try runtime.spawn(Machine.self, state: .red, extra: next)
    var seen: [String] = []
    var seenByType: [String] = []
    machine.observe { seen.append(Self.describe($0)) }
    runtime.observeAll(Machine.self) { _, event in seenByType.append(Self.describe(event)) }
    _ = machine.post(.long, tag: PostTag(UInt64.max))
    _ = machine.post(.double, tag: PostTag(7))
    _ = machine.post(.short)
    runtime.dispatch()
    let expected = [
      "handled long red->green tag \(UInt64.max)", "rejected double in green tag 7",
      "handled short green->amber tag 0",
    ]
    #expect(Machine._repliesAsWord)
    #expect(seen == expected)
    #expect(seenByType == expected)
  }
}
