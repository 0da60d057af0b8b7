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
