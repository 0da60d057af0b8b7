import Testing

@testable import MillraceHost

/// The byte-keyed index behind machine and input lookups behaves like a dictionary.
@Suite struct NameIndexTests {
  private func value(_ index: NameIndex<Int>, _ name: String) -> Int? {
    Array(name.utf8).withUnsafeBytes { index.value(forUTF8: $0) }
  }

  @Test func findsByBytesAndByString() {
    var index = NameIndex<Int>()
    index.set(1, for: "door")
    index.set(2, for: "door.2")
    #expect(value(index, "door") == 1)
    #expect(index["door.2"] == 2)
    #expect(value(index, "doo") == nil)
    #expect(value(index, "door ") == nil)
    #expect(value(index, "") == nil)
    index.set(3, for: "door")
    #expect(index["door"] == 3)
    #expect(index.count == 2)
    // The empty name is a name like any other here (the name rule keeps it out of the daemon).
    index.set(4, for: "")
    #expect(index[""] == 4)
    #expect(index.value(forUTF8: UnsafeRawBufferPointer(start: nil, count: 0)) == 4)
  }

  @Test func agreesWithADictionaryThroughGrowthAndRemovals() {
    // Names of every length around the 8-byte hashing step; removals in a scattered order
    // exercise the back-shifting of probe runs (including runs that wrap around the end).
    var index = NameIndex<Int>()
    var model: [String: Int] = [:]
    var generator = SystemRandomNumberGenerator()
    for round in 0..<6 {
      for number in 0..<500 {
        let name = "m" + String(repeating: "x", count: number % 19) + ":\(number)"
        index.set(number + round, for: name)
        model[name] = number + round
      }
      for name in model.keys.shuffled(using: &generator).prefix(350) {
        #expect(index.removeValue(for: name) == model.removeValue(forKey: name))
      }
      #expect(index.removeValue(for: "absent") == nil)
      #expect(index.count == model.count)
      for (name, number) in model { #expect(value(index, name) == number) }
      #expect(Set(index.allNames) == Set(model.keys))
      #expect(index.allValues.sorted() == model.values.sorted())
    }
    index.removeAll()
    #expect(index.isEmpty && index["m:0"] == nil)
  }
}

/// `scan(from:count:_:)` keeps Redis's `SCAN` guarantees while the index changes between calls.
@Suite struct NameIndexScanTests {
  /// One call's names and values, as text.
  private func scan(_ index: NameIndex<Int>, from cursor: UInt64, count: Int) -> (
    cursor: UInt64, passed: [(name: String, value: Int)]
  ) {
    var passed: [(name: String, value: Int)] = []
    let next = index.scan(from: cursor, count: count) { name, value in
      passed.append((String(decoding: name, as: UTF8.self), value))
    }
    return (next, passed)
  }

  /// An index of `size` names `n0`, `n1`… valued by their number.
  private func index(seed: UInt64, size: Int) -> NameIndex<Int> {
    var index = NameIndex<Int>(seed: seed)
    for number in 0..<size { index.set(number, for: "n\(number)") }
    return index
  }

  @Test func anUnchangedIndexPassesEachNameOnceInBucketCountOverCountCalls() {
    // Small tables have probe runs that wrap around the end; seeds vary which names collide.
    for seed: UInt64 in 1...8 {
      for size in [1, 2, 3, 4, 5, 13, 100, 1000] {
        let index = index(seed: seed, size: size)
        for count in [1, 2, 5, 16, 1 << 20] {
          var passed: [String: Int] = [:]
          var cursor: UInt64 = 0
          var calls = 0
          repeat {
            let call = scan(index, from: cursor, count: count)
            for (name, value) in call.passed {
              #expect(passed.updateValue(value, forKey: name) == nil, "\(name) passed twice")
            }
            cursor = call.cursor
            #expect(cursor < UInt64(index.bucketCount))
            calls += 1
          } while cursor != 0 && calls <= index.bucketCount
          #expect(cursor == 0)
          // Every call but the last visits `count` buckets (at most all of them).
          let perCall = min(count, index.bucketCount)
          #expect(calls == (index.bucketCount + perCall - 1) / perCall)
          #expect(passed == Dictionary(uniqueKeysWithValues: (0..<size).map { ("n\($0)", $0) }))
        }
      }
    }
  }

  @Test func anEmptyIndexEndsAtOnce() {
    var index = NameIndex<Int>(seed: 1)
    var calls = 0
    #expect(index.scan(from: 0, count: 10) { _, _ in calls += 1 } == 0)
    #expect(index.scan(from: 5, count: 10) { _, _ in calls += 1 } == 0)
    for number in 0..<100 { index.set(number, for: "n\(number)") }
    for number in 0..<100 { index.removeValue(for: "n\(number)") }
    #expect(index.bucketCount == 256)  // grown, never shrunk, and empty
    #expect(index.scan(from: 0, count: 1) { _, _ in calls += 1 } == 0)
    index.set(1, for: "n")
    index.removeAll()
    #expect(index.scan(from: 0, count: 1) { _, _ in calls += 1 } == 0)
    #expect(calls == 0)
  }

  @Test func countIsTheBucketsVisitedRoughlyTheNamesPassed() {
    let index = index(seed: 7, size: 1000)
    #expect(index.bucketCount == 2048)
    // 10 buckets a call: 205 calls, about 10 × 1000 / 2048 ≈ 5 names each.
    var cursor: UInt64 = 0
    var perCall: [Int] = []
    repeat {
      let call = scan(index, from: cursor, count: 10)
      cursor = call.cursor
      perCall.append(call.passed.count)
    } while cursor != 0 && perCall.count <= index.bucketCount
    #expect(perCall.count == 205)
    #expect(perCall.reduce(0, +) == 1000)
    #expect(perCall.max()! <= 20)
    // Below 1 counts as 1; above the bucket count, as the bucket count: one call does it all.
    for count in [0, -5] {
      #expect(scan(index, from: 0, count: count).cursor != 0)
    }
    let all = scan(index, from: 0, count: .max)
    #expect(all.cursor == 0 && all.passed.count == 1000)
    // Any cursor is safe to resume from, even one no call returned.
    var strange = UInt64.max
    var calls = 0
    repeat {
      strange = scan(index, from: strange, count: 64).cursor
      calls += 1
    } while strange != 0 && calls <= index.bucketCount
    #expect(strange == 0)
  }

  /// Across seeds and counts: names are added (the table doubles from 64 slots to 1024 or
  /// more), removed (probe runs shift back) and changed between calls.
  @Test(arguments: 1...12)
  func namesHeldThroughoutArePassedWhileTheIndexGrowsAndShrinks(seed: Int) {
    let count = [1, 3, 16][seed % 3]
    var index = NameIndex<Int>(seed: UInt64(seed))
    var model: [String: Int] = [:]
    func set(_ value: Int, _ name: String) {
      index.set(value, for: name)
      model[name] = value
    }
    func remove(_ name: String) {
      #expect(index.removeValue(for: name) == model.removeValue(forKey: name))
    }
    for number in 0..<20 { set(number, "keep.\(number)") }
    for number in 0..<10 { set(number, "gone.\(number)") }
    #expect(index.bucketCount == 64)
    var passed: [String] = []
    var cursor: UInt64 = 0
    var call = 0
    repeat {
      let step = scan(index, from: cursor, count: count)
      for (name, value) in step.passed {
        #expect(model[name] == value, "\(name) passed after it was removed or changed")
      }
      passed += step.passed.map(\.name)
      cursor = step.cursor
      call += 1
      // Between calls: 30 new names for the first 65 calls (about 2,000 names), each gone
      // again 5 calls later if odd; an initial `gone.` name removed now and then; values
      // changed.
      if call <= 65 {
        for number in 0..<30 { set(call, "new.\(call).\(number)") }
      }
      if call > 5 && call <= 70 {
        for number in stride(from: 1, to: 30, by: 2) { remove("new.\(call - 5).\(number)") }
      }
      if call.isMultiple(of: 4) && call / 4 < 10 { remove("gone.\(call / 4)") }
      if call.isMultiple(of: 3) && call <= 66 { set(-call, "new.\(call - 1).0") }
    } while cursor != 0 && call < 100_000
    #expect(cursor == 0)
    #expect(index.bucketCount >= 1024)  // at least four doublings during the iteration
    for number in 0..<20 { #expect(passed.contains("keep.\(number)")) }
    // Growth never repeats a bucket: no name came twice.
    #expect(Set(passed).count == passed.count)
  }

  @Test func removeAllDuringAnIterationEndsIt() {
    var index = index(seed: 3, size: 1000)
    var cursor: UInt64 = 0
    for _ in 0..<50 { cursor = scan(index, from: cursor, count: 10).cursor }
    #expect(cursor != 0)
    index.removeAll()
    for number in 0..<5 { index.set(number, for: "after.\(number)") }
    var calls = 0
    repeat {
      let step = scan(index, from: cursor, count: 2)
      for (name, value) in step.passed { #expect(index[name] == value) }
      cursor = step.cursor
      #expect(cursor < UInt64(index.bucketCount))
      calls += 1
    } while cursor != 0 && calls <= index.bucketCount
    #expect(cursor == 0)
  }
}
