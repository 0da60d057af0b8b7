import Testing

@testable import Millrace

/// Replies of machines whose inputs and states are `UInt16` are written as one word
/// (`_ReplyWord`), not by Swift's enum layout code: these tests fail if the two disagree.
@Suite("Reply words")
struct ReplyWordTests {
  /// Even inputs move the state to the input's value; odd ones are rejected.
  enum WordMachine: Machine {
    typealias Input = UInt16
    typealias State = UInt16
    typealias Output = UInt16

    static func resolve(
      _ input: UInt16, state: inout UInt16, extra: Void, effects: inout Effects<Self>
    ) -> Resolution {
      guard input % 2 == 0 else { return .rejected }
      state = input
      return .handled
    }
  }

  /// `WordMachine` without outputs: its events have another layout.
  enum SilentMachine: Machine {
    typealias Input = UInt16
    typealias State = UInt16

    static func resolve(
      _ input: UInt16, state: inout UInt16, extra: Void, effects: inout Effects<Self>
    ) -> Resolution {
      .handled
    }
  }

  typealias Event = MachineEvent<UInt16, UInt16, UInt16>

  @Test("only machines whose inputs, states and outputs are UInt16 reply as a word")
  func chosenByType() {
    #expect(WordMachine._repliesAsWord)
    #expect(!SilentMachine._repliesAsWord)
  }

  /// What an observer sees, written out so that every field is compared.
  static func describe(_ event: Event) -> String {
    switch event {
    case .replied(.handled(let input, let from, let to), let tag):
      return "handled \(input) \(from)->\(to) tag \(tag.rawValue)"
    case .replied(.rejected(let input, let state), let tag):
      return "rejected \(input) in \(state) tag \(tag.rawValue)"
    case .emitted(let output):
      return "emitted \(output)"
    }
  }

  @Test("a word built event reads back as the enum built one, in every field")
  func layout() {
    let tag = PostTag(0x8877_6655_4433_2211)
    let handled: Event = _ReplyWord.event(
      _ReplyWord.handled(0xFFFE, from: 0x0102, to: 0xA0B0), tag: tag)
    let rejected: Event = _ReplyWord.event(_ReplyWord.rejected(0x7FFF, state: 0xFFFF), tag: tag)
    let handledByEnum = Event.replied(.handled(0xFFFE, from: 0x0102, to: 0xA0B0), tag: tag)
    let rejectedByEnum = Event.replied(.rejected(0x7FFF, state: 0xFFFF), tag: tag)
    #expect(Self.describe(handled) == Self.describe(handledByEnum))
    #expect(Self.describe(rejected) == Self.describe(rejectedByEnum))
    #expect(handled.reply == .handled(0xFFFE, from: 0x0102, to: 0xA0B0))
    #expect(rejected.reply == .rejected(0x7FFF, state: 0xFFFF))
    #expect(handled.output == nil && rejected.output == nil)
  }

  @Test("observers of a machine and of its type see each reply's input, states and tag")
  func dispatched() throws {
    let runtime = Runtime()
    let machine = try runtime.spawn(WordMachine.self, state: 0xFFFF)
    var seen: [String] = []
    var seenByType: [String] = []
    machine.observe { seen.append(Self.describe($0)) }
    runtime.observeAll(WordMachine.self) { _, event in seenByType.append(Self.describe(event)) }
    _ = machine.post(0xFFFE, tag: PostTag(UInt64.max))
    _ = machine.post(0x8001, tag: PostTag(7))
    _ = machine.post(2)
    runtime.dispatch()
    let expected = [
      "handled 65534 65535->65534 tag \(UInt64.max)", "rejected 32769 in 65534 tag 7",
      "handled 2 65534->2 tag 0",
    ]
    #expect(seen == expected)
    #expect(seenByType == expected)
  }
}
