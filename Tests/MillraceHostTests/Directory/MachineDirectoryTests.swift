import Millrace
import Testing

@testable import MillraceHost

/// The machine directory: names inline and on the heap, lookups by bytes through incremental
/// resizes of its index, and its memory given back once empty.
@Suite struct MachineDirectoryTests {
  /// A name of `length` bytes ending with `number`.
  static func name(_ number: Int, length: Int = 0) -> String {
    let tail = "m\(number)"
    return String(repeating: "x", count: max(0, length - tail.count)) + tail
  }

  /// Files `name` under a made-up id whose generation is the slot + 7.
  static func insert(_ directory: MachineDirectory, _ name: String, slot: UInt32) {
    directory.insert(name, id: MachineID(index: slot, generation: slot + 7), kind: UInt16(slot % 3))
  }

  @Test func anEntryIsThirtyTwoBytesWithItsNameAtSixteen() {
    #expect(MemoryLayout<DirectoryEntry>.size == 32)
    #expect(MemoryLayout<DirectoryEntry>.stride == 32)
    #expect(MemoryLayout<DirectoryEntry>.offset(of: \.bytes) == DirectoryEntry.bytesOffset)
  }

  @Test func entriesStartOnACacheLineSoNoneStraddlesTwo() {
    for capacity in [1, 1000, 1 << 20] {
      let directory = MachineDirectory(capacity: capacity)
      #expect(Int(bitPattern: directory.entries) % 64 == 0)
      directory.insert(Self.name(1), id: MachineID(index: 0, generation: 1), kind: 0)
      directory.remove(0)
      #expect(directory.releaseMemoryIfEmpty(above: 0) > 0)
      #expect(Int(bitPattern: directory.entries) % 64 == 0)
    }
  }

  /// `holds` decides by the bytes once hash and length agree: a name that differs in any one
  /// byte (first, middle, last) is not held, inline (up to 16 bytes) or on the heap.
  @Test(arguments: [1, 2, 8, 9, 15, 16, 17, 128])
  func anEntryHoldsOnlyItsOwnBytes(length: Int) {
    let name = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    let entry = UnsafeMutablePointer<DirectoryEntry>.allocate(capacity: 1)
    entry.initialize(to: DirectoryEntry())
    defer {
      entry.release()
      entry.deallocate()
    }
    name.withUnsafeBytes { entry.take(name: $0, hash: 77, generation: 1, kind: 0) }
    #expect(name.withUnsafeBytes { entry.holds($0, hash: 77) })
    #expect(!name.withUnsafeBytes { entry.holds($0, hash: 78) })
    for position in Set([0, length / 2, length - 1]) {
      var other = name
      other[position] = UInt8(ascii: "-")
      #expect(!other.withUnsafeBytes { entry.holds($0, hash: 77) })
    }
    let longer = name + [UInt8(ascii: "a")]
    #expect(!longer.withUnsafeBytes { entry.holds($0, hash: 77) })
  }

  @Test(arguments: [1, 15, 16, 17, 40, 128])
  func namesOfEveryLengthAreFoundByBytesAndByString(length: Int) {
    let directory = MachineDirectory(capacity: 64, seed: 5)
    for slot in 0..<40 {
      Self.insert(directory, Self.name(slot, length: length), slot: UInt32(slot))
    }
    #expect(directory.count == 40)
    for slot in 0..<40 {
      let name = Self.name(slot, length: length)
      #expect(directory.slot(of: name) == UInt32(slot))
      let found = Array(name.utf8).withUnsafeBytes { directory.slot(ofUTF8: $0) }
      #expect(found == UInt32(slot))
      let entry = directory.entry(UInt32(slot))
      #expect(entry.name == name)
      #expect(entry.pointee.isOutOfLine == (name.utf8.count > DirectoryEntry.inlineCapacity))
      #expect(entry.pointee.kind == UInt16(slot % 3))
      #expect(
        directory.entry(of: MachineID(index: UInt32(slot), generation: UInt32(slot) + 7)) != nil)
      #expect(directory.entry(of: MachineID(index: UInt32(slot), generation: 1)) == nil)
    }
    #expect(directory.slot(of: Self.name(41, length: length)) == nil)
    #expect(directory.slot(of: Self.name(1, length: length) + "x") == nil)
    for slot in stride(from: 0, to: 40, by: 2) { directory.remove(UInt32(slot)) }
    for slot in 0..<40 {
      let expected: UInt32? = slot.isMultiple(of: 2) ? nil : UInt32(slot)
      #expect(directory.slot(of: Self.name(slot, length: length)) == expected)
    }
    #expect(!directory.entry(0).pointee.isTaken)
  }

  /// Names inline and on the heap (whose bytes the step that finds the entry warms).
  @Test(arguments: [0, 40, 128])
  func prefetchStepsLeadToTheNamesSlot(length: Int) {
    let directory = MachineDirectory(capacity: 1 << 12, seed: 3)
    for slot in 0..<1000 {
      Self.insert(directory, Self.name(slot, length: length), slot: UInt32(slot))
    }
    var steps: [Int: Int] = [:]
    var ends: [UInt64] = []
    for slot in 0..<1000 {
      let name = Array(Self.name(slot, length: length).utf8)
      var state = name.withUnsafeBytes {
        directory.prefetchBucket(hash: directory.hash(ofName: $0))
      }
      #expect(state != 0)
      // The bucket's head, then one step per entry until the name's own (no two of these
      // names share a hash), each entry warmed one step before it is read.
      var found: UInt32 = 0
      var warmed: UInt32 = 0
      var taken = 0
      while MachineDirectory.isWalking(state) && taken < 100 {
        let step = directory.prefetchStep(&state)
        if step.found != 0 { #expect(step.found == warmed && step.warmed == 0) }
        found = step.found
        warmed = step.warmed
        taken += 1
      }
      #expect(found == UInt32(slot) + 1, "\(Self.name(slot, length: length))")
      steps[taken, default: 0] += 1
      // The walk's end names the entry, and a lookup starting there finds the same slot.
      #expect(state >> 32 == UInt64(slot) + 1)
      #expect(
        name.withUnsafeBytes { directory.slot(ofUTF8: $0, prefetched: state) } == UInt32(slot))
      ends.append(state)
    }
    // Two steps when the name leads its bucket; more where names came after it in its bucket
    // (about a third of them, with as many buckets as names).
    #expect(steps[2, default: 0] > 500 && steps[2, default: 0] < 1000, "\(steps)")
    #expect(steps.keys.allSatisfy { $0 >= 2 && $0 <= 10 }, "\(steps)")
    // A walk that ended, or a name in no bucket: nothing to warm.
    var ended = ends[0]
    #expect(directory.prefetchStep(&ended) == (0, 0) && ended == ends[0])
    let empty = MachineDirectory(capacity: 8, seed: 3)
    var state = Array("x".utf8).withUnsafeBytes {
      empty.prefetchBucket(hash: empty.hash(ofName: $0))
    }
    #expect(empty.prefetchStep(&state) == (0, 0) && state == 0)
    let absent = Array("absent".utf8)
    state = absent.withUnsafeBytes { directory.prefetchBucket(hash: directory.hash(ofName: $0)) }
    var found: UInt32 = 0
    for _ in 0..<100 where state != 0 { found = directory.prefetchStep(&state).found }
    #expect(found == 0 && state == 0)
  }

  /// A lookup that starts where a prefetch walk ended (`slot(ofUTF8:prefetched:)`) gives what
  /// a lookup in full gives, whatever it is handed: another name's walk, a walk whose machine
  /// left and whose slot another name took, a walk not ended, nothing, or noise.
  @Test func aLookupFromAPrefetchedStateIsTheLookupInFull() {
    let directory = MachineDirectory(capacity: 1 << 10, seed: 5)
    for slot in 0..<500 { Self.insert(directory, Self.name(slot, length: 0), slot: UInt32(slot)) }
    func walk(_ name: String, steps: Int = 100) -> UInt64 {
      var state = Array(name.utf8).withUnsafeBytes {
        directory.prefetchBucket(hash: directory.hash(ofName: $0))
      }
      for _ in 0..<steps where MachineDirectory.isWalking(state) {
        _ = directory.prefetchStep(&state)
      }
      return state
    }
    func lookup(_ name: String, _ prefetched: UInt64) -> UInt32? {
      Array(name.utf8).withUnsafeBytes { directory.slot(ofUTF8: $0, prefetched: prefetched) }
    }
    let (a, b) = (Self.name(7, length: 0), Self.name(8, length: 0))
    let (walkA, walkB) = (walk(a), walk(b))
    #expect(lookup(a, walkA) == 7 && lookup(b, walkB) == 8)
    #expect(lookup(a, walkB) == 7 && lookup(b, walkA) == 8)
    #expect(lookup(a, 0) == 7 && lookup(a, walk(a, steps: 0)) == 7)
    #expect(lookup("absent", walkA) == nil)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<1000 {
      let noise = generator.next() as UInt64
      #expect(lookup(a, noise) == 7 && lookup("absent", noise) == nil)
    }
    // Slot 7 emptied and taken by another name: a's old walk names it, and finds nothing.
    directory.remove(7)
    Self.insert(directory, "other", slot: 7)
    #expect(lookup(a, walkA) == nil && lookup("other", walkA) == 7)
    #expect(lookup("other", walk("other")) == 7)
  }

  @Test func lookupsAreRightWhileTheIndexGrowsAndShrinks() {
    let directory = MachineDirectory(capacity: 1 << 14, seed: 11)
    var held = Set<Int>()
    var sawResizing = false
    func check() {
      // Present names, and a few absent ones, at every step of a resize.
      for number in held.prefix(64) {
        #expect(directory.slot(of: Self.name(number)) == UInt32(number))
      }
      for number in [-1, -2, 1 << 20] { #expect(directory.slot(of: Self.name(number)) == nil) }
    }
    for number in 0..<10_000 {
      Self.insert(directory, Self.name(number), slot: UInt32(number))
      held.insert(number)
      sawResizing = sawResizing || directory.isResizing
      if number % 97 == 0 { check() }
    }
    #expect(sawResizing)
    for number in 0..<10_000 { #expect(directory.slot(of: Self.name(number)) == UInt32(number)) }
    let grown = directory.bucketCount
    #expect(grown >= 20_000 && grown <= 32_768)
    var sawShrinking = false
    for number in (0..<10_000).reversed() where number >= 50 {
      directory.remove(UInt32(number))
      held.remove(number)
      sawShrinking = sawShrinking || (directory.isResizing && directory.bucketCount < grown)
      if number % 89 == 0 { check() }
    }
    #expect(sawShrinking)
    for _ in 0..<64 { directory.finishTurn() }
    #expect(!directory.isResizing)
    // 50 names: a shrink is due from 16 buckets a name (800) on.
    #expect(directory.bucketCount <= 512)
    for number in 0..<10_000 {
      #expect(directory.slot(of: Self.name(number)) == (number < 50 ? UInt32(number) : nil))
    }
  }

  @Test func aReservedIndexTakesItsNamesWithoutResizing() {
    let directory = MachineDirectory(capacity: 5_000, seed: 11)
    directory.reserve(names: 3_000)
    #expect(directory.bucketCount == 8_192)
    for slot in 0..<3_000 {
      Self.insert(directory, Self.name(slot), slot: UInt32(slot))
      #expect(!directory.isResizing)
    }
    #expect(directory.bucketCount == 8_192)
    #expect((0..<3_000).allSatisfy { directory.slot(of: Self.name($0)) == UInt32($0) })
    // Only an empty index is reserved: one that holds names keeps its size.
    directory.reserve(names: 5_000)
    #expect(directory.bucketCount == 8_192)
  }

  /// Files `count` names from `first` unindexed, in shuffled slots, then indexes them.
  static func fileUnindexed(_ directory: MachineDirectory, _ first: Int, count: Int) -> [UInt32] {
    var slots = (first..<(first + count)).map(UInt32.init)
    var random = SystemRandomNumberGenerator()
    slots.shuffle(using: &random)
    for slot in slots {
      Self.name(Int(slot), length: Int(slot) % 40).withUTF8Bytes {
        directory.insertUnindexed(
          name: $0, id: MachineID(index: slot, generation: slot + 7), kind: UInt16(slot % 3))
      }
    }
    return slots
  }

  @Test func namesFiledUnindexedAreCountedThenFoundOnceIndexed() {
    let directory = MachineDirectory(capacity: 5_000, seed: 5)
    directory.reserve(names: 3_000)
    let slots = Self.fileUnindexed(directory, 0, count: 3_000)
    #expect(directory.count == 3_000)
    #expect(directory.slot(of: Self.name(7, length: 7)) == nil)
    directory.index(slots)
    #expect(directory.count == 3_000)
    #expect(directory.bucketCount == 8_192)
    for slot in 0..<3_000 {
      #expect(directory.slot(of: Self.name(slot, length: slot % 40)) == UInt32(slot))
    }
    #expect(directory.slot(of: Self.name(3_000)) == nil)
    // Indexed, they are removed like any other.
    for slot in stride(from: 0, to: 3_000, by: 2) { directory.remove(UInt32(slot)) }
    #expect(directory.count == 1_500)
    for slot in 0..<3_000 {
      let found = directory.slot(of: Self.name(slot, length: slot % 40))
      #expect(found == (slot % 2 == 0 ? nil : UInt32(slot)))
    }
  }

  @Test func namesIndexedBeyondTheReservedRoomGrowTheIndex() {
    // No reserve, names held already: the index grows as inserts one by one would grow it.
    let directory = MachineDirectory(capacity: 20_000, seed: 9)
    for slot in 0..<100 {
      Self.insert(directory, Self.name(slot, length: slot % 40), slot: UInt32(slot))
    }
    let slots = Self.fileUnindexed(directory, 100, count: 10_000)
    directory.index(slots)
    while directory.isResizing { directory.finishTurn() }
    #expect(directory.count == 10_100)
    #expect(directory.bucketCount >= 20_200)
    #expect(
      (0..<10_100).allSatisfy {
        directory.slot(of: Self.name($0, length: $0 % 40)) == UInt32($0)
      })
  }

  @Test func aResizeEndsWithinTheOperationsBeforeTheNextOne() {
    // Only inserts, no turns: each doubling must be over before the next is due.
    let directory = MachineDirectory(capacity: 1 << 16, seed: 3)
    var resizes = 0
    var wasResizing = false
    for number in 0..<60_000 {
      Self.insert(directory, Self.name(number), slot: UInt32(number))
      if directory.isResizing && !wasResizing { resizes += 1 }
      wasResizing = directory.isResizing
      #expect(directory.bucketCount >= directory.count * NameBuckets.bucketsPerName)
    }
    #expect(resizes == 13)  // 16 buckets to 131,072
  }

  @Test func removingEverythingGivesTheMemoryBack() {
    let directory = MachineDirectory(capacity: 1 << 16, seed: 9)
    for number in 0..<20_000 {
      Self.insert(
        directory, Self.name(number, length: number % 2 == 0 ? 40 : 8), slot: UInt32(number))
    }
    #expect(directory.touchedBytes > 20_000 * 32)
    #expect(directory.releaseMemoryIfEmpty() == 0)  // not empty: nothing given back
    for number in 0..<20_000 { directory.remove(UInt32(number)) }
    #expect(directory.count == 0)
    #expect(directory.releaseMemoryIfEmpty() == 20_000 * 32)
    #expect(directory.touchedBytes == 0)
    // Usable again, from scratch.
    Self.insert(directory, "again", slot: 3)
    #expect(directory.slot(of: "again") == 3)
    #expect(directory.touchedBytes == 4 * 32 + NameBuckets.minimumBuckets * 4)
  }
}
