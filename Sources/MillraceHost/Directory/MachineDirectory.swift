import CPrefetch
import Millrace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The host's table of named machines: one 32-byte `DirectoryEntry` per machine, in the slot
/// of its runtime record (`MachineID.index`), found by name through `NameBuckets`. No object,
/// closure or `String` is kept per machine: a hosted machine costs its entry (with its name
/// inline up to 16 bytes) and 8 to 16 bytes of buckets here.
///
/// Guarantees:
/// - The entries are reserved for the runtime's capacity at creation and written as machines
///   take slots (`calloc`: the system maps pages as they are first written), so memory grows
///   with the machines hosted, not with the capacity; `releaseMemoryIfEmpty()` gives it back
///   once no machine is left.
/// - A lookup by name hashes its bytes once (`NameHash`, seeded at random unless a test fixes
///   the seed), reads a bucket head and the entries of its chain, and compares bytes only
///   where the 32-bit hashes and lengths match; one that starts where a prefetch walk ended
///   (`slot(ofUTF8:prefetched:)`) reads that walk's entry first, and neither hashes nor reads
///   a bucket when it holds the name. It neither allocates nor makes a `String`.
/// - No operation blocks for long: index resizes are incremental (`NameBuckets`), and
///   `finishTurn()` moves a bounded number of buckets.
/// - Names are compared byte for byte: the directory keys exactly what `NameRule` lets through
///   (1 to 128 ASCII bytes).
/// - Loop thread only.
final class MachineDirectory {
  /// The entries, by slot: `capacity` reserved, those below `touched` possibly written. Two
  /// to a cache line, each within one (`reserve`).
  @exclusivity(unchecked) private(set) var entries: UnsafeMutablePointer<DirectoryEntry>
  /// What `entries` was carved from, to free.
  private var allocation: UnsafeMutableRawPointer
  /// The number of slots (the runtime's machine capacity).
  let capacity: Int
  @exclusivity(unchecked) private var buckets = NameBuckets()
  private let nameHash: NameHash
  /// Slots at or above it were never written since the entries were (re)reserved.
  @exclusivity(unchecked) private var touched = 0
  /// Machines filed by `insertUnindexed` and not indexed yet.
  private var unindexed = 0

  /// Buckets moved between turns while the index resizes (`finishTurn()`): bounded work,
  /// tens of microseconds.
  static let bucketsPerTurn = 1024

  /// A directory for `capacity` slots, its hash seeded at random, or with `seed` (tests).
  init(capacity: Int, seed: UInt64? = nil) {
    self.capacity = max(capacity, 1)
    (entries, allocation) = Self.reserve(self.capacity)
    nameHash = seed.map(NameHash.init(seed:)) ?? NameHash()
  }

  deinit {
    removeAll()
    free(allocation)
    buckets.deallocate()
  }

  /// `capacity` zeroed entries (so every entry starts free without being written), from a
  /// cache line's boundary, and the allocation to free. A large `calloc` starts 16 bytes into
  /// a page: every other entry would then straddle two lines, its name in the line after its
  /// hash, and a lookup warmed by `prefetchStep` would still miss on the name.
  private static func reserve(
    _ capacity: Int
  ) -> (UnsafeMutablePointer<DirectoryEntry>, allocation: UnsafeMutableRawPointer) {
    let line = 64
    let allocation = calloc(capacity * MemoryLayout<DirectoryEntry>.stride + line, 1)!
    let start = (Int(bitPattern: allocation) + line - 1) & ~(line - 1)
    let entries = UnsafeMutableRawPointer(bitPattern: start)!.bindMemory(
      to: DirectoryEntry.self, capacity: capacity)
    return (entries, allocation)
  }

  /// The number of machines.
  var count: Int { buckets.count + unindexed }

  /// The entry in `slot`.
  @inline(__always)
  func entry(_ slot: UInt32) -> UnsafeMutablePointer<DirectoryEntry> { entries + Int(slot) }

  /// The entry of the machine `id` names, while it is in the directory.
  @inline(__always)
  func entry(of id: MachineID) -> UnsafeMutablePointer<DirectoryEntry>? {
    guard Int(id.index) < touched else { return nil }
    let entry = entries + Int(id.index)
    guard entry.pointee.isTaken, entry.pointee.generation == id.generation else { return nil }
    return entry
  }

  // MARK: Names

  /// The slot of the machine whose name's UTF-8 bytes are `name`, or nil.
  @inline(__always)
  func slot(ofUTF8 name: UnsafeRawBufferPointer) -> UInt32? {
    let hash = UInt32(truncatingIfNeeded: nameHash(name))
    return buckets.find(hash: hash, in: entries) { $0.holds(name, hash: hash) }
  }

  /// `slot(ofUTF8:)` starting from `prefetched`, a state a walk of `prefetchStep(_:)` left (or
  /// any other value): when the walk found an entry, and that entry holds `name`, its slot,
  /// without hashing the name again or reading its bucket; otherwise the lookup in full. The
  /// same answer as `slot(ofUTF8:)` whatever `prefetched` is: the entry's bytes decide.
  @inline(__always)
  func slot(ofUTF8 name: UnsafeRawBufferPointer, prefetched: UInt64) -> UInt32? {
    let link = UInt32(truncatingIfNeeded: prefetched >> 32)
    if prefetched & Self.walking == 0, link != 0, Int(link) <= touched {
      let slot = link &- 1
      if entry(slot).holds(name, hash: UInt32(truncatingIfNeeded: prefetched)) { return slot }
    }
    return slot(ofUTF8: name)
  }

  /// Warms the cache for a lookup to come of the name whose `hash(ofName:)` is `hash` (a
  /// prefetch hint, reading nothing but the bucket array's address): its bucket's head.
  /// Returns the state of the walk `prefetchStep(_:)` goes on with (never 0).
  func prefetchBucket(hash: UInt32) -> UInt64 {
    if let address = buckets.head(hash: hash).address { millrace_prefetch(address) }
    return Self.walking | UInt64(hash)
  }

  /// The hash a lookup of `name` starts from. It reads nothing but the name.
  @inline(__always)
  func hash(ofName name: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(truncatingIfNeeded: nameHash(name))
  }

  /// One step of the walk `prefetchBucket(hash:)` began (nothing for a state not walking:
  /// `isWalking`), reading only what the step before warmed: from the bucket's head, warms
  /// its first entry; from an entry whose hash is the name's, returns its slot + 1 as `found`
  /// (the name's entry, unless two names share a hash) and warms the name's bytes when they
  /// are not inline; from another, warms the next entry of the bucket. An entry warmed is returned as
  /// `warmed` (slot + 1), so that the caller can warm what goes with that slot at the same
  /// time, before the entry says whether it is the name's.
  ///
  /// The state: the name's hash in the low 32 bits, an entry's slot + 1 above it (the entry
  /// warmed last, 0 for the bucket's head), and `walking` while the walk goes on. A walk that
  /// found an entry ends with that entry's slot + 1 and the hash, not walking (a lookup may
  /// start there: `slot(ofUTF8:prefetched:)`); one that reached the bucket's end, with 0.
  func prefetchStep(_ state: inout UInt64) -> (found: UInt32, warmed: UInt32) {
    guard Self.isWalking(state) else { return (0, 0) }
    let hash = UInt32(truncatingIfNeeded: state)
    var link = UInt32(truncatingIfNeeded: (state & ~Self.walking) >> 32)
    if link == 0 {
      link = buckets.head(hash: hash).link
    } else {
      let entry = entries + Int(link &- 1)
      if entry.pointee.hash == hash {
        state &= ~Self.walking
        // A name past the inline bytes is compared where it lies, on the heap: warmed too.
        if entry.pointee.isOutOfLine,
          let name = UnsafeRawPointer(bitPattern: UInt(entry.pointee.bytes.0))
        {
          millrace_prefetch(name)
          millrace_prefetch(name + (Int(entry.pointee.length) &- 1))
        }
        return (link, 0)
      }
      link = entry.pointee.next
    }
    guard link != 0 else {
      state = 0
      return (0, 0)
    }
    millrace_prefetch(entries + Int(link &- 1))
    state = Self.walking | UInt64(link) << 32 | UInt64(hash)
    return (0, link)
  }

  /// The bit that marks a state of `prefetchStep` whose walk goes on (slots stay below 2³¹).
  private static let walking: UInt64 = 1 << 63

  /// Whether `state` is a walk `prefetchStep(_:)` goes on with.
  @inline(__always)
  static func isWalking(_ state: UInt64) -> Bool { state & walking != 0 }

  /// The slot of the machine named `name`, or nil.
  func slot(of name: String) -> UInt32? {
    name.withUTF8Bytes { slot(ofUTF8: $0) }
  }

  /// Files the machine `id` under `name` (1 to 128 bytes, not filed yet) with the host's kind
  /// slot `kind`; its slot's entry must be free.
  func insert(name: UnsafeRawBufferPointer, id: MachineID, kind: UInt16) {
    take(name: name, id: id, kind: kind)
    buckets.insert(id.index, in: entries)
  }

  /// Files `id` under `name`.
  func insert(_ name: String, id: MachineID, kind: UInt16) {
    name.withUTF8Bytes { insert(name: $0, id: id, kind: kind) }
  }

  /// Files the machine `id` as `insert(name:id:kind:)` does, but leaves its name out of the
  /// index until `index(_:)` is given its slot: for filing many machines at once (a restore
  /// into an empty directory), whose index is then built in one pass. Until then a lookup does
  /// not find the name, and the slot must not be removed; `count` includes it.
  func insertUnindexed(name: UnsafeRawBufferPointer, id: MachineID, kind: UInt16) {
    take(name: name, id: id, kind: kind)
    unindexed += 1
  }

  /// Writes the entry of `id`'s slot, which must be free, for `name`, not indexed yet.
  private func take(name: UnsafeRawBufferPointer, id: MachineID, kind: UInt16) {
    precondition(Int(id.index) < capacity, "a machine slot beyond the directory's capacity")
    let entry = entries + Int(id.index)
    precondition(!entry.pointee.isTaken, "a directory slot taken twice")
    entry.take(
      name: name, hash: UInt32(truncatingIfNeeded: nameHash(name)), generation: id.generation,
      kind: kind)
    touched = max(touched, Int(id.index) + 1)
  }

  /// Enters the names of `slots`, filed by `insertUnindexed`, into the index
  /// (`NameBuckets.insert(contentsOf:in:)`): from then on they are found, and can be removed.
  func index(_ slots: [UInt32]) {
    precondition(slots.count <= unindexed, "a slot indexed that was not filed unindexed")
    slots.withUnsafeBufferPointer { buckets.insert(contentsOf: $0, in: entries) }
    unindexed -= slots.count
  }

  /// Makes the name index ready for `names` machines (at most the capacity) when it holds
  /// none, so that filing them runs no resize (`NameBuckets.reserve`).
  func reserve(names: Int) {
    buckets.reserve(min(names, capacity))
  }

  /// Takes the machine in `slot` out (its entry freed, its name's heap bytes too).
  func remove(_ slot: UInt32) {
    let entry = entries + Int(slot)
    guard entry.pointee.isTaken else { return }
    buckets.remove(slot, in: entries)
    entry.release()
  }

  /// Takes every machine out (the hash keeps its seed); the memory stays reserved.
  func removeAll() {
    for slot in 0..<touched where entries[slot].isTaken {
      (entries + slot).release()
    }
    buckets.deallocate()
    buckets = NameBuckets()
    touched = 0
    unindexed = 0
  }

  // MARK: Iterating

  /// Calls `body` with the slot of every machine, in slot order. `body` must not add or
  /// remove machines.
  func forEachSlot(_ body: (UInt32) -> Void) {
    for slot in 0..<touched where entries[slot].isTaken { body(UInt32(slot)) }
  }

  /// Every machine's slot, in slot order.
  var allSlots: [UInt32] {
    var slots: [UInt32] = []
    slots.reserveCapacity(count)
    forEachSlot { slots.append($0) }
    return slots
  }

  /// One step of a `SCAN`-style iteration (`NameBuckets.scan`, with its guarantees): passes
  /// `body` the slot of each machine in about `count` buckets from `cursor`; returns the next
  /// cursor (0 at the end). `body` must not add, remove or look up machines by name (a lookup
  /// may move buckets of a resize under the scan).
  func scan(from cursor: UInt64, count: Int, _ body: (UInt32) -> Void) -> UInt64 {
    buckets.scan(from: cursor, count: count, in: entries, body)
  }

  // MARK: Memory

  /// Between turns: moves a bounded number of buckets while the index resizes.
  func finishTurn() {
    if buckets.isResizing { buckets.rehash(buckets: Self.bucketsPerTurn, in: entries) }
  }

  /// Whether the name index is resizing (two bucket arrays; `NameBuckets`).
  var isResizing: Bool { buckets.isResizing }

  /// Buckets of the name index (of the array moved to, while resizing).
  var bucketCount: Int { buckets.bucketCount }

  /// Bytes of entries written and bucket arrays held.
  var touchedBytes: Int { touched * MemoryLayout<DirectoryEntry>.stride + buckets.bytes }

  /// When no machine is left and more than `threshold` bytes of entries were written, frees
  /// them and reserves them afresh, untouched; returns the bytes given back. (The buckets
  /// were freed with the last name.)
  @discardableResult
  func releaseMemoryIfEmpty(above threshold: Int = 64 << 10) -> Int {
    releaseMemoryIfEmpty(above: threshold) { free($0) }
  }

  /// `releaseMemoryIfEmpty(above:)`, except that the entries' memory is handed to `release`,
  /// which must give it to `free`, on any thread, once, instead of being freed here.
  @discardableResult
  func releaseMemoryIfEmpty(
    above threshold: Int = 64 << 10, handingOff release: (UnsafeMutableRawPointer) -> Void
  ) -> Int {
    let bytes = touched * MemoryLayout<DirectoryEntry>.stride
    guard count == 0, bytes > threshold else { return 0 }
    release(allocation)
    (entries, allocation) = Self.reserve(capacity)
    touched = 0
    return bytes
  }
}
