import Testing

@testable import MillraceHost

@Suite("Tag slab")
struct TagSlabTests {
  @Test("values come back by their tags, once; tags are never 0 and never repeat a live one")
  func fileAndTake() {
    var slab = TagSlab<String>()
    let a = slab.insert("a")
    let b = slab.insert("b")
    #expect(a != 0 && b != 0 && a != b)
    #expect(slab.count == 2)
    #expect(slab.remove(tag: a) == "a")
    #expect(slab.remove(tag: a) == nil)
    #expect(slab.remove(tag: 0) == nil)
    #expect(slab.remove(tag: 1 << 40 | 99) == nil)
    // The freed slot is reused under a new tag; the old one still finds nothing.
    #expect(slab.nextTag != a)
    let c = slab.insert("c")
    #expect(c != a)
    #expect(slab.capacity == 2)
    #expect(slab.remove(tag: a) == nil)
    #expect(slab.remove(tag: c) == "c")
    #expect(slab.remove(tag: b) == "b")
    #expect(slab.isEmpty)
  }

  @Test("nextTag is the tag insert hands out")
  func nextTag() {
    var slab = TagSlab<Int>()
    var live: [UInt64: Int] = [:]
    for step in 0..<200 {
      if step % 3 == 2, let tag = live.keys.min() {
        #expect(slab.remove(tag: tag) == live.removeValue(forKey: tag))
      } else {
        let expected = slab.nextTag
        let tag = slab.insert(step)
        #expect(tag == expected)
        #expect(live[tag] == nil)
        live[tag] = step
      }
      #expect(slab.count == live.count)
    }
  }

  @Test("removeAll(where:) takes the picked values only; an empty slab gives back its slots")
  func removeAllAndShrink() {
    var slab = TagSlab<Int>()
    let tags = (0..<10).map { slab.insert($0) }
    #expect(slab.removeAll { $0.isMultiple(of: 2) } == [0, 2, 4, 6, 8])
    #expect(slab.remove(tag: tags[1]) == 1)
    #expect(slab.remove(tag: tags[2]) == nil)
    slab.shrinkIfEmpty(keeping: 4)
    #expect(slab.capacity == 10)  // not empty yet
    _ = slab.removeAll { _ in true }
    slab.shrinkIfEmpty(keeping: 4)
    #expect(slab.capacity == 0)
    #expect(slab.insert(7) != 0)
  }
}
