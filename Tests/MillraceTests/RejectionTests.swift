import Testing

@testable import Millrace

/// A resolver may change its state and still reject the input; the runtime then keeps the
/// state it had (`Machine.resolve`). The runtime resolves small states in a copy and larger
/// ones in place (`_TypedMachine.registerStateBytes`): each way is checked here.
@Suite("Rejections")
struct RejectionTests {
  /// A state built from one number: in one word, or in eight (above the copy's limit).
  protocol Numbered: Equatable, CustomStringConvertible {
    init(_ number: Int)
  }

  struct Small: Numbered {
    var number: Int
    init(_ number: Int) { self.number = number }
    var description: String { "\(number)" }
  }

  struct Large: Numbered {
    var words: (Int, Int, Int, Int, Int, Int, Int, Int)
    init(_ number: Int) { words = (number, 1, 2, 3, 4, 5, 6, number) }
    static func == (left: Large, right: Large) -> Bool {
      left.description == right.description
    }
    var description: String { "\(words.0)/\(words.7)" }
  }

  /// Writes the input into its state, then handles a positive input and rejects the others.
  enum Scribbler<State: Numbered>: Machine {
    typealias Input = Int

    static func resolve(
      _ input: Int, state: inout State, extra: Void, effects: inout Effects<Self>
    ) -> Resolution {
      state = State(input)
      return input > 0 ? .handled : .rejected
    }
  }

  /// Posts 5, -7 and 9 to a machine starting at 1; returns its replies and its final state.
  static func scribble<State: Numbered>(_: State.Type) throws -> (replies: [String], state: String)
  {
    #expect(
      (MemoryLayout<State>.size <= _TypedMachine<Scribbler<State>>.registerStateBytes)
        == (State.self == Small.self))
    let runtime = Runtime()
    let machine = try runtime.spawn(Scribbler<State>.self, state: State(1))
    var replies: [String] = []
    machine.observe { event in
      switch event {
      case .replied(.handled(let input, let from, let to), _):
        replies.append("\(input) \(from)->\(to)")
      case .replied(.rejected(let input, let state), _):
        replies.append("\(input) rejected in \(state)")
      case .emitted: break
      }
    }
    for input in [5, -7, 9] { _ = machine.post(input) }
    runtime.dispatch()
    return (replies, machine.state.map(\.description) ?? "gone")
  }

  @Test("a rejection keeps the state a small state had before the resolver changed it")
  func small() throws {
    let (replies, state) = try Self.scribble(Small.self)
    #expect(replies == ["5 1->5", "-7 rejected in 5", "9 5->9"])
    #expect(state == "9")
  }

  @Test("a rejection keeps the state a large state had before the resolver changed it")
  func large() throws {
    let (replies, state) = try Self.scribble(Large.self)
    #expect(replies == ["5 1/1->5/5", "-7 rejected in 5/5", "9 5/5->9/9"])
    #expect(state == "9/9")
  }
}
