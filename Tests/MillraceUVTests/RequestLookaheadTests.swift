import MillraceWire
import Testing

@testable import MillraceUV

/// `RequestLookahead`, the ring of requests a reader decodes ahead, against an array doing the
/// same: its requests come out in the order they went in, with their states changed in
/// place, across wrap-arounds and growth with the front anywhere in the ring.
@Suite("The ring of requests decoded ahead")
struct RequestLookaheadTests {
  /// A frame that says which request it is.
  private func frame(_ number: Int) -> Frame { Frame([Array("\(number)".utf8)]) }

  private func number(_ frame: Frame) -> Int? { Int(frame.string(at: 0)) }

  @Test func requestsComeOutInOrderWithTheirStagesAcrossWrapsAndGrowth() {
    let ring = RequestLookahead()
    var model: [(number: Int, stage: Int)] = []
    var generator = SystemRandomNumberGenerator()
    var next = 0
    // First a growth with the front inside the ring, wrapped: 4 slots, the front at the third.
    for _ in 0..<3 {
      ring.append(frame(next))
      model.append((next, 0))
      next += 1
    }
    for _ in 0..<2 { #expect(number(ring.removeFirst()) == model.removeFirst().number) }
    for _ in 0..<6 {
      ring.append(frame(next))
      model.append((next, 0))
      next += 1
    }
    var order: [Int] = []
    ring.forEach { order.append(number($0.frame) ?? -1) }
    #expect(order == Array(2..<9))
    for _ in 0..<5_000 {
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<4:
        // Bursts of appends, up to 40 waiting: the ring grows with its front anywhere.
        for _ in 0..<Int.random(in: 1...3, using: &generator) where model.count < 40 {
          ring.append(frame(next))
          model.append((next, 0))
          next += 1
        }
      case 4..<7:
        guard !model.isEmpty else { continue }
        #expect(number(ring.removeFirst()) == model.removeFirst().number)
      default:
        var seen: [Int] = []
        ring.forEach { request in
          seen.append(number(request.frame) ?? -1)
          request.state += 1
        }
        #expect(seen == model.map(\.number))
        for index in model.indices { model[index].stage += 1 }
      }
      #expect(ring.count == model.count)
      #expect(ring.isEmpty == model.isEmpty)
    }
    var states: [UInt64] = []
    ring.forEach { states.append($0.state) }
    #expect(states == model.map { UInt64($0.stage) })
    while !model.isEmpty {
      #expect(number(ring.removeFirst()) == model.removeFirst().number)
    }
    #expect(ring.isEmpty)
    ring.append(frame(next))
    ring.failure = .tooLong
    ring.removeAll()
    #expect(ring.isEmpty && ring.failure == nil)
  }
}
