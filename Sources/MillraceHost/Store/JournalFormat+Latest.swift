import CPrefetch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension JournalFormat {
  /// Calls `body` with the latest record of each machine among the records after the header
  /// (version 3), in the order they were written, or with `byName` in the order of their names'
  /// bytes (SQLite's: a checkpoint's writes then walk the table from start to end, which takes
  /// a batch of random machines a third of the time): for a checkpoint of records already known
  /// whole (decoded or written by this process). Only each record's name is looked at until
  /// the last of each name is known (one pass; an open-addressing table over the names'
  /// seeded hashes (`NameHash`) and bytes: no `String`, and the bytes past the first 16
  /// compared only for longer names). Stops at the first record that does not fit; skips one
  /// whose payload does not parse.
  ///
  /// Memory grows with the names, not the records: 32 bytes per name (the entries, reserved
  /// for records of 40 bytes, mapped by the system only as names fill them) and 8 to 16 per
  /// name of table, and 32 per name while they are sorted by name; freed before it returns.
  /// `expectedNames` (the machines stored, say) sizes the table at once; it grows past it.
  ///
  /// When `abandoned` returns true (asked every 1,024 records while the latest are found, and
  /// before they are sorted), stops there and returns false, having handed none to `body`.
  /// Once the first is handed out it is no longer asked: a checkpoint merging its records is
  /// closer to its end than a new one that would take them again. Returns true once every
  /// latest record went to `body`.
  @discardableResult
  static func forEachLatest<Failure: Error>(
    _ bytes: UnsafeRawBufferPointer, byName: Bool = false, expectedNames: Int = 0,
    abandoned: (() -> Bool)? = nil, _ body: (JournalRecord) throws(Failure) -> Void
  ) throws(Failure) -> Bool {
    let entries = LatestEntries(bytes, expectedNames: expectedNames, abandoned: abandoned)
    defer { entries.deallocate() }
    guard !entries.stoppedEarly else { return false }
    if let abandoned, abandoned() { return false }
    if byName { entries.sortByName(bytes) } else { entries.sortByPayload() }
    let kept = entries.kept
    for index in kept.indices {
      if index & 255 == 0 { SharedCPU.yield() }
      // Sorted by name, the records are read at random places of the journal: the one
      // `prefetchDistance` ahead is warmed meanwhile.
      if index + prefetchDistance < kept.count {
        millrace_prefetch(bytes.baseAddress! + Int(kept[index + prefetchDistance].payload))
      }
      let entry = kept[index]
      let payload = UnsafeRawBufferPointer(
        start: bytes.baseAddress! + Int(entry.payload), count: Int(entry.payloadLength))
      if let parsed = record(payload) { try body(parsed) }
    }
    return true
  }
}

/// How many records ahead `forEachLatest` warms the cache for the one it will read.
private let prefetchDistance = 8

/// One record of a journal, as `forEachLatest` keeps it: where its payload and name are, the
/// name's hash, and the name's first 16 bytes as two big-endian integers (its sort key).
private struct LatestEntry {
  var payload: UInt32
  var payloadLength: UInt32
  var hash: UInt32
  var nameLength: UInt32
  var high: UInt64
  var low: UInt64

  /// The name's bytes within the journal's `bytes` (the payload's first part, after its tag:
  /// a record `LatestEntries` kept parsed whole).
  @inline(__always)
  func name(in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    var at = 1
    return ImageChunk.part(
      UnsafeRawBufferPointer(start: bytes.baseAddress! + Int(payload), count: Int(payloadLength)),
      at: &at)!
  }
}

/// The latest record of each name among a journal's records, found in one pass: an entry per
/// name, in the order of the names' first records, which each later record of the name
/// updates in place, found through an open-addressing table of entry numbers (hash, length,
/// the first 16 bytes, and only past those the bytes compared).
///
/// Memory grows with the names, not with the records: a journal of many changes to the same
/// machines costs what one change to each costs.
private struct LatestEntries {
  private let storage: UnsafeMutableBufferPointer<LatestEntry>
  /// The entries kept: the latest of each name, in the order of the names' first records (by
  /// name once sorted, in the order written once `sortByPayload` ran).
  private(set) var kept: UnsafeMutableBufferPointer<LatestEntry>
  /// Whether `abandoned` stopped the search before the last record.
  let stoppedEarly: Bool

  /// Stops early, keeping what it found so far, when `abandoned` returns true (asked every
  /// 1,024 records).
  init(_ bytes: UnsafeRawBufferPointer, expectedNames: Int, abandoned: (() -> Bool)?) {
    // Entries reserved for records of `expectedRecordBytes` (memory the system maps only as
    // names fill it), doubled when there are more names.
    let records = max(bytes.count / Self.expectedRecordBytes, 16)
    var storage = UnsafeMutableBufferPointer<LatestEntry>.allocate(capacity: records)
    // Room in the table for the names expected (no more than there may be records), so that
    // it seldom grows: each growth places every name again, a miss each.
    var slots = Self.initialSlots
    while slots < 2 * min(expectedNames, records) { slots *= 2 }
    var table = NameSlots(size: slots)
    defer { table.deallocate() }
    let nameHash = NameHash()
    var count = 0
    // Records are parsed `probeDistance` ahead into a ring, their slots warmed as they are;
    // the entry a slot names is warmed `compareDistance` ahead: the misses of one record
    // overlap with the work on the ones before it.
    let ring = UnsafeMutableBufferPointer<LatestEntry>.allocate(capacity: Self.ringSize)
    defer { ring.deallocate() }
    var (parsed, done, offset) = (0, 0, JournalFormat.headerSize)
    var exhausted = false
    var stopped = false
    while true {
      while !exhausted, parsed &- done < Self.probeDistance {
        guard let (entry, next) = Self.record(at: offset, in: bytes, nameHash) else {
          exhausted = true
          break
        }
        ring[parsed & (Self.ringSize &- 1)] = entry
        table.warm(entry.hash)
        parsed &+= 1
        offset = next
      }
      guard done < parsed else { break }
      if done &+ Self.compareDistance < parsed {
        let held = table.first(ring[(done &+ Self.compareDistance) & (Self.ringSize &- 1)].hash)
        if held != NameSlots.empty { millrace_prefetch(storage.baseAddress! + Int(held)) }
      }
      let entry = ring[done & (Self.ringSize &- 1)]
      done &+= 1
      if done & 1023 == 0 {
        SharedCPU.yield()
        if let abandoned, abandoned() {
          stopped = true
          break
        }
      }
      var slot = table.start(entry.hash)
      while true {
        let held = table.slots[slot]
        if held == NameSlots.empty {
          if count == storage.count { storage = Self.doubled(storage) }
          storage.initializeElement(at: count, to: entry)
          table.slots[slot] = UInt32(count)
          count &+= 1
          if 2 &* count > table.size { table.grow(storage[0..<count]) }
          break
        }
        if Self.sameName(storage[Int(held)], entry, in: bytes) {
          storage[Int(held)].payload = entry.payload
          storage[Int(held)].payloadLength = entry.payloadLength
          break
        }
        slot = (slot &+ 1) & table.mask
      }
    }
    self.storage = storage
    stoppedEarly = stopped
    self.kept = UnsafeMutableBufferPointer(rebasing: storage[0..<count])
  }

  /// The record size the entries are first reserved for: about a `toggle` machine's.
  private static let expectedRecordBytes = 40
  /// How many records ahead the table's slot for a record's name is warmed.
  private static let probeDistance = 48
  /// How many records ahead the entry a name will be compared with is warmed.
  private static let compareDistance = 24
  /// The ring of records parsed ahead: a power of two above `probeDistance`.
  private static let ringSize = 64
  /// The table's first size.
  private static let initialSlots = 1024

  /// `entries`, moved into a buffer twice as large (the old one freed).
  private static func doubled(
    _ entries: UnsafeMutableBufferPointer<LatestEntry>
  ) -> UnsafeMutableBufferPointer<LatestEntry> {
    let larger = UnsafeMutableBufferPointer<LatestEntry>.allocate(capacity: 2 * entries.count)
    _ = larger.moveInitialize(fromContentsOf: entries)
    entries.deallocate()
    return larger
  }

  func deallocate() { storage.deallocate() }

  /// Orders the kept entries as their records were written.
  func sortByPayload() {
    SharedCPU.sort(kept) { $0.payload < $1.payload }
  }

  /// Orders the kept entries by their names' bytes: by the first 16 as two integers (which
  /// settles it for most names), then by all of them.
  ///
  /// When at most eight of those 16 bytes differ between the names (`dev:0` to `dev:999999`:
  /// six), by a radix sort on them, a pass per byte, then the names alike in all 16 by
  /// comparison; else by comparison alone. Memory: 32 bytes per entry while it sorts (two arrays
  /// of packed bytes with their payloads' places).
  func sortByName(_ bytes: UnsafeRawBufferPointer) {
    let kept = kept
    guard kept.count > 1 else { return }
    let before = { (left: LatestEntry, right: LatestEntry) -> Bool in
      if left.high != right.high { return left.high < right.high }
      if left.low != right.low { return left.low < right.low }
      return ImageChunk.compare(left.name(in: bytes), right.name(in: bytes)) < 0
    }
    // None differing: every name is alike in its 16 bytes, for the comparison alone.
    guard let varying = Self.varyingBytes(of: kept), !varying.isEmpty else {
      SharedCPU.sort(kept, by: before)
      return
    }
    Self.radixSort(kept, on: varying)
    // Names alike in their 16 bytes are next to each other now, in any order.
    var start = 0
    while start < kept.count {
      var end = start &+ 1
      while end < kept.count, kept[end].high == kept[start].high, kept[end].low == kept[start].low {
        end &+= 1
      }
      if end &- start > 1 {
        SharedCPU.sort(UnsafeMutableBufferPointer(rebasing: kept[start..<end]), by: before)
      }
      start = end
    }
  }

  /// The shifts, most significant first, of the bytes of `high` (0 to 56) and then of `low`
  /// (64 to 120, less 64) that differ between the entries; nil when more than eight do.
  private static func varyingBytes(of entries: UnsafeMutableBufferPointer<LatestEntry>) -> [Int]? {
    var (anyHigh, allHigh, anyLow, allLow): (UInt64, UInt64, UInt64, UInt64) = (0, ~0, 0, ~0)
    for entry in entries {
      anyHigh |= entry.high
      allHigh &= entry.high
      anyLow |= entry.low
      allLow &= entry.low
    }
    let (high, low) = (anyHigh ^ allHigh, anyLow ^ allLow)
    var shifts: [Int] = []
    for shift in stride(from: 56, through: 0, by: -8) where high >> shift & 0xFF != 0 {
      shifts.append(shift)
    }
    for shift in stride(from: 56, through: 0, by: -8) where low >> shift & 0xFF != 0 {
      shifts.append(64 + shift)
    }
    return shifts.count <= 8 ? shifts : nil
  }

  /// Orders `entries` by their bytes at `shifts` (from `varyingBytes`), which are all that
  /// differ in their first 16: each entry's bytes there packed into one integer, with where
  /// its payload is, sorted a byte per pass (least significant first, stable), then written
  /// back in order, the entries read in order too. Afterwards an entry holds its payload's
  /// place and length, and its packed bytes in `high` with 0 in `low`: among these entries,
  /// the same order and the same ties as their names' first 16 bytes. Its hash and name
  /// length are no longer set (`name(in:)` reads the name from the journal).
  private static func radixSort(
    _ entries: UnsafeMutableBufferPointer<LatestEntry>, on shifts: [Int]
  ) {
    typealias Item = (key: UInt64, payload: UInt32, payloadLength: UInt32)
    let count = entries.count
    let keys = UnsafeMutableBufferPointer<Item>.allocate(capacity: count)
    let spare = UnsafeMutableBufferPointer<Item>.allocate(capacity: count)
    defer {
      keys.deallocate()
      spare.deallocate()
    }
    // Where the differing bytes are in the names (0 to 15). When they lie within 8 bytes, the
    // key is the 8 bytes that end with the last of them, taken with a shift or two (the alike
    // bytes among them order nothing); else the differing bytes are packed one by one.
    let positions = shifts.map { $0 < 64 ? 7 &- $0 / 8 : 15 &- ($0 &- 64) / 8 }
    let last = positions.max()!
    let windowed = last &- positions.min()! < 8
    // Each pass's byte of the key, least significant first.
    let digits: [UInt64] =
      windowed
      ? positions.reversed().map { UInt64(8 &* (last &- $0)) }
      : (0..<shifts.count).map { UInt64(8 &* $0) }
    eachIndex(count) { index in
      let entry = entries[index]
      var key: UInt64 = 0
      if windowed {
        key = Self.window(entry, endingAt: last)
      } else {
        for shift in shifts {
          let word = shift < 64 ? entry.high >> shift : entry.low >> (shift &- 64)
          key = key << 8 | word & 0xFF
        }
      }
      keys[index] = (key, entry.payload, entry.payloadLength)
    }
    var (from, to) = (keys, spare)
    // The buckets' counts, then their next places: a pointer, not an array, so that a pass
    // costs a load and a store per entry, with no check of the array's uniqueness or bounds.
    let counts = UnsafeMutablePointer<Int>.allocate(capacity: 256)
    defer { counts.deallocate() }
    for shift in digits {
      counts.initialize(repeating: 0, count: 256)
      eachIndex(count) { index in counts[Int(from[index].key &>> shift & 0xFF)] &+= 1 }
      var total = 0
      for bucket in 0..<256 { (counts[bucket], total) = (total, total &+ counts[bucket]) }
      eachIndex(count) { index in
        let item = from[index]
        let bucket = Int(item.key &>> shift & 0xFF)
        to[counts[bucket]] = item
        counts[bucket] &+= 1
      }
      swap(&from, &to)
    }
    eachIndex(count) { index in
      let item = from[index]
      entries[index] = LatestEntry(
        payload: item.payload, payloadLength: item.payloadLength, hash: 0, nameLength: 0,
        high: item.key, low: 0)
    }
  }

  /// The 8 bytes of `entry`'s name's first 16 that end with byte `last` (0 to 15), as a
  /// big-endian integer (zeros before the name's start).
  @inline(__always)
  private static func window(_ entry: LatestEntry, endingAt last: Int) -> UInt64 {
    if last < 8 { return entry.high >> UInt64(8 &* (7 &- last)) }
    if last == 15 { return entry.low }
    return entry.high << UInt64(8 &* (last &- 7)) | entry.low >> UInt64(8 &* (15 &- last))
  }

  /// Calls `body` with `0..<count` in order, yielding the CPU now and then
  /// (`SharedCPU.yield()`, every 16,384).
  @inline(__always)
  private static func eachIndex(_ count: Int, _ body: (Int) -> Void) {
    var start = 0
    while start < count {
      SharedCPU.yield()
      let end = min(start &+ 16_384, count)
      for index in start..<end { body(index) }
      start = end
    }
  }

  /// Whether the two entries' names are the same: by their hashes, lengths and first 16
  /// bytes (in the entries), and only past those by the journal's bytes (another cache miss).
  private static func sameName(
    _ left: LatestEntry, _ right: LatestEntry, in bytes: UnsafeRawBufferPointer
  ) -> Bool {
    guard
      left.hash == right.hash && left.nameLength == right.nameLength && left.high == right.high
        && left.low == right.low
    else { return false }
    guard left.nameLength > 16 else { return true }
    return ImageChunk.compare(left.name(in: bytes), right.name(in: bytes)) == 0
  }

  /// The record at `offset` and the offset after it; nil when no whole record starts there or
  /// its name does not parse. A payload starts with its tag (1 byte) and its name (a part:
  /// varint count, bytes).
  @inline(__always)
  private static func record(
    at offset: Int, in bytes: UnsafeRawBufferPointer, _ nameHash: NameHash
  ) -> (LatestEntry, next: Int)? {
    guard bytes.count &- offset >= JournalFormat.recordHeaderSize &+ 2 else { return nil }
    let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
    let payload = offset &+ JournalFormat.recordHeaderSize
    guard length <= bytes.count &- payload else { return nil }
    // The name's count: one byte for a name shorter than 128 bytes, read inline. `at` ends
    // past the name, in the payload.
    let first = Int(bytes.load(fromByteOffset: payload &+ 1, as: UInt8.self))
    var at = 2 &+ first
    var name = UnsafeRawBufferPointer(start: bytes.baseAddress! + (payload &+ 2), count: first)
    if first >= 0x80 || first > length &- 2 {
      at = 1
      guard
        let long = ImageChunk.part(
          UnsafeRawBufferPointer(start: bytes.baseAddress! + payload, count: length), at: &at)
      else { return nil }
      name = long
    }
    let readable = bytes.count &- (payload &+ at &- name.count)
    let entry = LatestEntry(
      payload: UInt32(payload), payloadLength: UInt32(length),
      hash: UInt32(truncatingIfNeeded: nameHash(name) >> 32),
      nameLength: UInt32(name.count), high: word(name, 0, readable: readable),
      low: word(name, 8, readable: readable))
    return (entry, payload &+ length)
  }

  /// Bytes `start..<start + 8` of `name` as a big-endian integer, zeros past its end. Where
  /// `readable` bytes from the name's start may be read, one load, masked.
  @inline(__always)
  private static func word(_ name: UnsafeRawBufferPointer, _ start: Int, readable: Int) -> UInt64 {
    if name.count >= start + 8 {
      return UInt64(bigEndian: name.loadUnaligned(fromByteOffset: start, as: UInt64.self))
    }
    guard name.count > start else { return 0 }
    if readable >= start + 8 {
      let loaded = UInt64(
        bigEndian: UnsafeRawPointer(name.baseAddress!).loadUnaligned(
          fromByteOffset: start, as: UInt64.self))
      return loaded & ~(UInt64.max >> (8 * (name.count - start)))
    }
    var word: UInt64 = 0
    for index in start..<start + 8 {
      word = word << 8 | UInt64(index < name.count ? name[index] : 0)
    }
    return word
  }
}

/// `LatestEntries`' table: open addressing over the names' hashes, each slot an entry number
/// or `empty`; at most half full (it doubles past that).
private struct NameSlots {
  /// A slot that holds no entry.
  static let empty = UInt32.max

  private(set) var slots: UnsafeMutableBufferPointer<UInt32>

  /// `size` empty slots (a power of two).
  init(size: Int) {
    slots = .allocate(capacity: size)
    slots.initialize(repeating: Self.empty)
  }

  var size: Int { slots.count }
  var mask: Int { slots.count &- 1 }

  /// The slot a name of `hash` is first looked for in.
  @inline(__always)
  func start(_ hash: UInt32) -> Int { Int(hash) & mask }

  /// What the first slot of `hash` holds.
  @inline(__always)
  func first(_ hash: UInt32) -> UInt32 { slots[start(hash)] }

  /// Warms the first slot of `hash`.
  @inline(__always)
  func warm(_ hash: UInt32) { millrace_prefetch(slots.baseAddress! + start(hash)) }

  /// Twice the slots, `entries` (all of them, distinct names) placed again.
  mutating func grow(_ entries: Slice<UnsafeMutableBufferPointer<LatestEntry>>) {
    let doubled = 2 &* size
    slots.deallocate()
    slots = .allocate(capacity: doubled)
    slots.initialize(repeating: Self.empty)
    for index in entries.indices {
      var slot = start(entries[index].hash)
      while slots[slot] != Self.empty { slot = (slot &+ 1) & mask }
      slots[slot] = UInt32(index)
    }
  }

  func deallocate() { slots.deallocate() }
}
