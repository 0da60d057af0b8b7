import MillraceWire
import Testing

@testable import MillraceUV

/// `RequestLookahead`, the group of requests a reader decodes ahead, against an array doing the
/// same: its requests come out in the order they went in, with states changed in place, in
/// groups appended once the one before was taken out, up to `groupSize`.
@Suite("The requests decoded ahead")
struct RequestLookaheadTests {
  /// A frame that says which request it is.
  private func frame(_ number: Int) -> Frame { Frame([Array("\(number)".utf8)]) }

  private func number(_ frame: Frame) -> Int? { Int(frame.string(at: 0)) }

  /// The numbers and states of the requests waiting, front first.
  private func waiting(_ group: RequestLookahead) -> [(number: Int, state: UInt64)] {
    var waiting: [(Int, UInt64)] = []
    group.withWaiting { frames, states in
      #expect(frames.count == states.count)
      for index in frames.indices { waiting.append((number(frames[index]) ?? -1, states[index])) }
    }
    return waiting
  }

  @Test func requestsComeOutInOrderWithTheirStatesGroupAfterGroup() {
    let group = RequestLookahead()
    var model: [(number: Int, state: UInt64)] = []
    var generator = SystemRandomNumberGenerator()
    var next = 0
    for _ in 0..<2_000 {
      if model.isEmpty {
        // A new group: up to `groupSize` requests, each with state 0.
        for _ in 0..<Int.random(in: 1...RequestLookahead.groupSize, using: &generator) {
          group.append(frame(next))
          model.append((next, 0))
          next += 1
        }
      }
      switch Int.random(in: 0..<3, using: &generator) {
      case 0:
        // A stage: every state changed in place.
        group.withWaiting { _, states in
          for index in states.indices { states[index] = states[index] &* 3 &+ 1 }
        }
        for index in model.indices { model[index].state = model[index].state &* 3 &+ 1 }
      default:
        // Taken out with the state its stages left.
        let (frame, state) = group.removeFirst()
        let expected = model.removeFirst()
        #expect(number(frame) == expected.number && state == expected.state)
      }
      let seen = waiting(group)
      #expect(seen.map(\.number) == model.map(\.number))
      #expect(seen.map(\.state) == model.map(\.state))
      #expect(group.count == model.count)
      #expect(group.isEmpty == model.isEmpty)
    }
    // What is left dropped with the failure, and the memory given back.
    if group.isEmpty { group.append(frame(next)) }
    group.failure = .tooLong
    group.removeAll()
    #expect(group.isEmpty && group.failure == nil && waiting(group).isEmpty)
  }

  @Test func aGroupHoldsGroupSizeAndTheNextStartsOnceItIsTakenOut() {
    let group = RequestLookahead()
    #expect(waiting(group).isEmpty)
    for number in 0..<RequestLookahead.groupSize { group.append(frame(number)) }
    #expect(group.count == RequestLookahead.groupSize)
    for number in 0..<RequestLookahead.groupSize {
      #expect(self.number(group.removeFirst().0) == number)
    }
    group.append(frame(99))
    #expect(waiting(group).map(\.number) == [99])
    #expect(waiting(group).map(\.state) == [0])
  }
}
