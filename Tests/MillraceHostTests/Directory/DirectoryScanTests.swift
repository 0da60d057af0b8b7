import Millrace
import Testing

@testable import MillraceHost

/// `MachineDirectory.scan` keeps Redis's `SCAN` guarantees while the directory changes between
/// calls, also in the middle of its index's incremental resizes.
@Suite struct DirectoryScanTests {
  /// A directory with names filed in free slots, and a model of it.
  final class Model {
    let directory: MachineDirectory
    var slots: [String: UInt32] = [:]
    var free: [UInt32]

    init(seed: UInt64, capacity: Int = 1 << 15) {
      directory = MachineDirectory(capacity: capacity, seed: seed)
      free = (0..<UInt32(capacity)).reversed()
    }

    func add(_ name: String) {
      guard slots[name] == nil else { return }
      let slot = free.removeLast()
      directory.insert(name, id: MachineID(index: slot, generation: 1), kind: 0)
      slots[name] = slot
    }

    func remove(_ name: String) {
      guard let slot = slots.removeValue(forKey: name) else { return }
      directory.remove(slot)
      free.append(slot)
    }

    /// One call: the cursor and the names passed.
    func scan(from cursor: UInt64, count: Int) -> (cursor: UInt64, names: [String]) {
      var names: [String] = []
      let next = directory.scan(from: cursor, count: count) {
        names.append(directory.entry($0).name)
      }
      return (next, names)
    }

    /// A whole iteration with `between` run after each call; the names passed, in order.
    func iterate(count: Int, between: (Int) -> Void = { _ in }) -> [String] {
      var passed: [String] = []
      var cursor: UInt64 = 0
      var calls = 0
      repeat {
        let step = scan(from: cursor, count: count)
        for name in step.names { #expect(slots[name] != nil, "\(name) passed while not held") }
        passed += step.names
        cursor = step.cursor
        calls += 1
        between(calls)
      } while cursor != 0 && calls < 1_000_000
      #expect(cursor == 0)
      return passed
    }
  }

  @Test func anUnchangedDirectoryPassesEachNameOnce() {
    for seed: UInt64 in 1...6 {
      for size in [1, 2, 5, 16, 17, 100, 1000] {
        let model = Model(seed: seed)
        for number in 0..<size { model.add("n\(number)") }
        for count in [1, 3, 16, 1 << 20] {
          let passed = model.iterate(count: count)
          #expect(passed.sorted() == model.slots.keys.sorted())
        }
      }
    }
    #expect(Model(seed: 1).scan(from: 0, count: 10).cursor == 0)
  }

  @Test func anIterationInTheMiddleOfAResizePassesEachNameOnce() {
    for seed: UInt64 in 1...6 {
      // Growing: 1025 names make 1024 buckets double; few operations since, so two arrays.
      let growing = Model(seed: seed)
      for number in 0...1024 { growing.add("g\(number)") }
      #expect(growing.directory.isResizing)
      // Shrinking: from 2048 buckets down to 200 names.
      let shrinking = Model(seed: seed)
      for number in 0..<2000 { shrinking.add("s\(number)") }
      for number in 0..<2000 where !shrinking.directory.isResizing || number < 1800 {
        shrinking.remove("s\(number)")
        if shrinking.slots.count <= 200 { break }
      }
      #expect(shrinking.directory.isResizing)
      for model in [growing, shrinking] {
        for count in [1, 2, 7, 100] {
          let passed = model.iterate(count: count)
          #expect(passed.count == Set(passed).count, "a name passed twice")
          #expect(Set(passed) == Set(model.slots.keys))
        }
      }
    }
  }

  /// Names are added (the index doubles from 128 buckets to 4,096 or more, each doubling
  /// incremental), then removed (it shrinks back) between calls.
  @Test(arguments: 1...12)
  func namesHeldThroughoutArePassedWhileTheIndexResizes(seed: Int) {
    let count = [1, 3, 16][seed % 3]
    let model = Model(seed: UInt64(seed))
    for number in 0..<20 { model.add("keep.\(number)") }
    for number in 0..<40 { model.add("gone.\(number)") }
    var resizedDuring = 0
    // Grows only: no name may come twice.
    let grown = model.iterate(count: count) { call in
      if call <= 150 { for number in 0..<30 { model.add("new.\(call).\(number)") } }
      if call % 4 == 0 && call / 4 < 40 { model.remove("gone.\(call / 4)") }
      if model.directory.isResizing { resizedDuring += 1 }
    }
    #expect(model.directory.bucketCount >= 4_096)
    #expect(resizedDuring > 0)
    for number in 0..<20 { #expect(grown.contains("keep.\(number)")) }
    #expect(Set(grown).count == grown.count)
    // Shrinks: every name but the kept ones goes during the iteration.
    let doomed = model.slots.keys.filter { !$0.hasPrefix("keep.") }
    var shrunkDuring = 0
    let shrunk = model.iterate(count: count) { call in
      for name in doomed.dropFirst((call - 1) * 100).prefix(100) { model.remove(name) }
      if model.directory.isResizing { shrunkDuring += 1 }
    }
    #expect(shrunkDuring > 0)
    #expect(model.directory.bucketCount <= 1_024)
    for number in 0..<20 { #expect(shrunk.contains("keep.\(number)")) }
  }
}
