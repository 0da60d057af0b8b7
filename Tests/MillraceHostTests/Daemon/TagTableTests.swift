import Testing

@testable import MillraceHost

@Suite("Tag table")
struct TagTableTests {
  @Test("values come back by their tags, once; tags are never 0 and never repeat a live one")
  func fileAndTake() {
    var table = TagTable<String>()
    let a = table.insert("a")
    let b = table.insert("b")
    #expect(a != 0 && b != 0 && a != b)
    #expect(table.count == 2)
    #expect(table.remove(tag: a) == "a")
    #expect(table.remove(tag: a) == nil)
    #expect(table.remove(tag: 0) == nil)
    #expect(table.remove(tag: 1 << 40 | 99) == nil)
    // The freed slot is reused under a new tag; the old one still finds nothing.
    #expect(table.nextTag != a)
    let c = table.insert("c")
    #expect(c != a)
    #expect(table.capacity == 2)
    #expect(table.remove(tag: a) == nil)
    #expect(table.remove(tag: c) == "c")
    #expect(table.remove(tag: b) == "b")
    #expect(table.isEmpty)
  }

  @Test("nextTag is the tag insert hands out")
  func nextTag() {
    var table = TagTable<Int>()
    var live: [UInt64: Int] = [:]
    for step in 0..<200 {
      if step % 3 == 2, let tag = live.keys.min() {
        #expect(table.remove(tag: tag) == live.removeValue(forKey: tag))
      } else {
        let expected = table.nextTag
        let tag = table.insert(step)
        #expect(tag == expected)
        #expect(live[tag] == nil)
        live[tag] = step
      }
      #expect(table.count == live.count)
    }
  }

  @Test("removeAll(where:) takes the picked values only; an empty table gives back its slots")
  func removeAllAndShrink() {
    var table = TagTable<Int>()
    let tags = (0..<10).map { table.insert($0) }
    #expect(table.removeAll { $0.isMultiple(of: 2) } == [0, 2, 4, 6, 8])
    #expect(table.remove(tag: tags[1]) == 1)
    #expect(table.remove(tag: tags[2]) == nil)
    table.shrinkIfEmpty(keeping: 4)
    #expect(table.capacity == 10)  // not empty yet
    _ = table.removeAll { _ in true }
    table.shrinkIfEmpty(keeping: 4)
    #expect(table.capacity == 0)
    #expect(table.insert(7) != 0)
  }
}
