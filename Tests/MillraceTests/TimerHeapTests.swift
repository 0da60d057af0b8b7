import Testing

@testable import Millrace

@Suite("Timer heap")
struct TimerHeapTests {
  /// A heap and, beside it, what it should hold: each armed handle's deadline and arming
  /// order, kept the plain way.
  final class Rig {
    var heap: _TimerHeap
    var model: [UInt32: (deadline: UInt64, order: Int)] = [:]
    var armings = 0

    init(capacity: Int) { heap = _TimerHeap(capacity: capacity)! }

    deinit { heap.deallocate() }

    func arm(at deadline: UInt64) -> UInt32? {
      guard
        let handle = heap.arm(
          deadline: deadline, period: 0, owner: MachineID(index: 0, generation: 0), slot: 0,
          slotGeneration: 0)
      else { return nil }
      armings += 1
      model[handle] = (deadline, armings)
      return handle
    }

    func disarm(_ handle: UInt32) {
      heap.disarm(handle)
      model[handle] = nil
    }

    func reschedule(_ handle: UInt32, to deadline: UInt64) {
      heap.reschedule(handle, deadline: deadline)
      armings += 1
      model[handle] = (deadline, armings)
    }

    /// The handles in the order they must fire.
    var expectedOrder: [UInt32] {
      model.sorted { ($0.value.deadline, $0.value.order) < ($1.value.deadline, $1.value.order) }
        .map(\.key)
    }

    /// Takes the earliest timer off until none is left; returns the handles in that order.
    func drain() -> [UInt32] {
      var fired: [UInt32] = []
      while heap.earliestDeadline != nil {
        let handle = heap.earliest
        fired.append(handle)
        disarm(handle)
      }
      return fired
    }
  }

  @Test("timers fire by deadline, and those due together in the order they were armed")
  func order() throws {
    let rig = Rig(capacity: 4_096)
    var handles: [UInt32] = []
    // 97 distinct deadlines over 3,000 timers: ties everywhere, as with many timers of one span.
    for index in 0..<3_000 {
      handles.append(try #require(rig.arm(at: UInt64(index * 7_919 % 97))))
    }
    for (index, handle) in handles.enumerated() {
      if index % 3 == 0 {
        rig.disarm(handle)
      } else if index % 5 == 1 {
        // Moved, earlier or later: it now ranks after timers already armed for its deadline.
        rig.reschedule(handle, to: UInt64(index * 31 % 89))
      }
    }
    #expect(rig.heap.count == rig.model.count)
    for (handle, expected) in rig.model {
      #expect(rig.heap.deadline(of: handle) == expected.deadline)
    }
    let expected = rig.expectedOrder
    #expect(rig.drain() == expected)
  }

  @Test("cancelling any timer, the earliest or one deep in the heap, keeps the others in order")
  func cancellation() throws {
    let rig = Rig(capacity: 512)
    for index in 0..<500 { _ = try #require(rig.arm(at: UInt64(500 - index) % 37)) }
    // Interleave taking the earliest with cancelling the latest-armed timer still armed.
    var fired: [UInt32] = []
    var expected: [UInt32] = []
    while let deadline = rig.heap.earliestDeadline {
      expected.append(rig.expectedOrder[0])
      let handle = rig.heap.earliest
      #expect(deadline == rig.model[handle]?.deadline)
      fired.append(handle)
      rig.disarm(handle)
      if let latest = rig.model.max(by: { $0.value.order < $1.value.order })?.key {
        rig.disarm(latest)
      }
    }
    #expect(fired == expected)
    #expect(rig.heap.count == 0)
  }

  @Test("arming fails only when every entry is in use, and a cancelled one is reused")
  func capacity() throws {
    let rig = Rig(capacity: 3)
    let first = try #require(rig.arm(at: 5))
    _ = try #require(rig.arm(at: 1))
    _ = try #require(rig.arm(at: 3))
    #expect(rig.arm(at: 2) == nil)
    rig.disarm(first)
    let reused = try #require(rig.arm(at: 0))
    #expect(reused == first)
    #expect(rig.heap.earliest == reused)
    let expected = rig.expectedOrder
    #expect(rig.drain() == expected)
  }
}
