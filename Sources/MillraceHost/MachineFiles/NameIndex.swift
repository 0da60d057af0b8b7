#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Values found by name, where a name is looked up by its UTF-8 bytes: a request's words are
/// matched as they arrived on the socket, without building a `String` or hashing one.
///
/// Guarantees:
/// - A lookup hashes the bytes once (a multiply–xorshift hash, 8 bytes per step, seeded at
///   random per index, so which names collide differs from one index and one run to the next;
///   tests fix the seed with `init(seed:)`) and compares bytes only where the full 64-bit
///   hashes match. It neither allocates nor touches reference counts of the stored names.
/// - Open addressing with linear probing, at most half full; a removal shifts the entries
///   behind it back, so no lookup ever walks over deleted slots.
/// - Names are compared byte for byte: an index keys exactly what `NameRule` lets through
///   (ASCII), where byte equality is string equality.
/// - Iteration order is unspecified. `scan(from:count:_:)` iterates in bounded steps with
///   Redis's `SCAN` guarantees, while the index changes between steps.
/// - Like `Dictionary`, it keeps the room it grew to when names are removed (a slot is 8 bytes
///   of hash, an empty array and the value); `removeAll()` gives it back.
struct NameIndex<Value> {
  /// 0 marks an empty slot; stored hashes are never 0.
  private var hashes: [UInt64]
  private var names: [[UInt8]]
  private var values: [Value?]
  private let nameHash: NameHash
  /// The number of names held.
  private(set) var count = 0

  /// An empty index, its hash seeded at random.
  init() {
    self.init(hash: NameHash())
  }

  /// An empty index whose hash is seeded with `seed`: which names collide, and the order in
  /// which a scan visits them, are the same in every run (for tests).
  init(seed: UInt64) {
    self.init(hash: NameHash(seed: seed))
  }

  private init(hash: NameHash) {
    hashes = Array(repeating: 0, count: 8)
    names = Array(repeating: [], count: 8)
    values = Array(repeating: nil, count: 8)
    self.nameHash = hash
  }

  /// Whether the index holds no name.
  var isEmpty: Bool { count == 0 }

  /// The value stored under the name whose UTF-8 bytes are `name`.
  func value(forUTF8 name: UnsafeRawBufferPointer) -> Value? {
    guard count > 0 else { return nil }
    let hash = nameHash(name)
    guard let slot = slot(of: name, hash: hash) else { return nil }
    return values[slot]
  }

  /// The value stored under `name`.
  subscript(name: String) -> Value? {
    name.withUTF8Bytes { value(forUTF8: $0) }
  }

  /// Stores `value` under `name`, replacing what was there.
  mutating func set(_ value: Value, for name: String) {
    name.withUTF8Bytes { bytes in
      let hash = nameHash(bytes)
      if let slot = slot(of: bytes, hash: hash) {
        values[slot] = value
        return
      }
      if (count + 1) * 2 > hashes.count { grow() }
      place(hash, Array(bytes), value)
      count += 1
    }
  }

  /// Removes `name`; returns the value it had.
  @discardableResult
  mutating func removeValue(for name: String) -> Value? {
    name.withUTF8Bytes { bytes in
      guard count > 0, let slot = slot(of: bytes, hash: nameHash(bytes)) else { return nil }
      let removed = values[slot]
      vacate(slot)
      count -= 1
      return removed
    }
  }

  /// Every value, in no particular order.
  var allValues: [Value] { values.compactMap { $0 } }

  /// Every name, in no particular order.
  var allNames: [String] {
    hashes.indices.compactMap { hashes[$0] == 0 ? nil : String(decoding: names[$0], as: UTF8.self) }
  }

  /// Removes every name (the hash keeps its seed).
  mutating func removeAll() {
    self = NameIndex(hash: nameHash)
  }

  // MARK: Scanning

  /// The number of home buckets, which is the number of slots: a power of two, at least 8 and
  /// at least twice the number of names. A full scan visits each bucket once.
  var bucketCount: Int { hashes.count }

  /// Visits `count` home buckets from `cursor` (Redis's `SCAN` step), passing `body` each name
  /// whose home they are, with its value; returns the cursor to go on from.
  ///
  /// A full iteration starts at cursor 0 and calls again with each cursor returned until one is
  /// 0. Between calls the index may change in any way. A name's home bucket is its hash masked
  /// to the table, and buckets are visited in Redis's reverse-binary cursor order, so that the
  /// buckets visited before the table doubled are, in the doubled table, exactly the buckets
  /// whose low bits they share.
  ///
  /// Guarantees:
  /// - A name held from the first call of a full iteration to its last is passed at least once,
  ///   however the index grew (or `removeAll` shrank it) in between. A name added or removed
  ///   during the iteration may be passed or not.
  /// - A name is passed at most once per call, and at most once per iteration unless
  ///   `removeAll` shrank the table during it (then Redis's cursor may visit buckets again):
  ///   growth never repeats a bucket. So if the index does not change, or only grows, during an
  ///   iteration, no name is passed twice.
  /// - The cursor returned is below `bucketCount`, and 0 only at the end of the iteration
  ///   (then nothing is left to visit); an empty index returns 0 at once. A cursor that no call
  ///   returned is still safe: it starts somewhere in the middle.
  /// - Work: `count` is clamped to 1...`bucketCount`, and that many buckets are visited (fewer
  ///   when the iteration ends). Visiting a bucket reads the probe run that starts at it, up to
  ///   the next empty slot, where every name of that home lies (linear probing, and removals
  ///   that shift back, keep it so). A call thus reads at most `count` × (longest run + 1)
  ///   slots and calls `body` at most once per name it passes. With the table at most half full
  ///   and a seeded hash, a bucket costs at most about 2.5 slot reads on average (Knuth's cost
  ///   of an unsuccessful linear-probing search at half load), so a call costs O(`count`); the
  ///   worst case, every name in one run, is `count` × (number of names + 1) slot reads.
  /// - Names per call: `count` × (number of names) / `bucketCount` on average, so between a
  ///   quarter and a half of `count` after growth. The index does not shrink when names are
  ///   removed, so after many removals calls pass few names, or none: a call that passes
  ///   nothing is not the end of the iteration, only cursor 0 is.
  /// - `body` gets the stored name's bytes and must not change the index.
  func scan(from cursor: UInt64, count: Int, _ body: (_ name: [UInt8], _ value: Value) -> Void)
    -> UInt64
  {
    guard self.count > 0 else { return 0 }
    let bucketMask = UInt64(mask)
    var cursor = cursor
    for _ in 0..<min(max(count, 1), bucketCount) {
      let home = Int(cursor & bucketMask)
      var slot = home
      while hashes[slot] != 0 {
        if self.home(of: hashes[slot]) == home { body(names[slot], values[slot]!) }
        slot = (slot + 1) & mask
      }
      cursor = cursor.nextScanCursor(mask: bucketMask)
      if cursor == 0 { break }
    }
    return cursor
  }

  // MARK: Slots

  private var mask: Int { hashes.count - 1 }

  /// The slot where a search for `hash` starts.
  private func home(of hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & mask }

  private func slot(of name: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
    var slot = home(of: hash)
    while true {
      let stored = hashes[slot]
      if stored == 0 { return nil }
      if stored == hash && Self.equal(names[slot], name) {
        return slot
      }
      slot = (slot + 1) & mask
    }
  }

  private mutating func place(_ hash: UInt64, _ name: [UInt8], _ value: Value?) {
    var slot = home(of: hash)
    while hashes[slot] != 0 { slot = (slot + 1) & mask }
    hashes[slot] = hash
    names[slot] = name
    values[slot] = value
  }

  /// Empties `slot`, then moves back every entry of the probe run after it that may live
  /// there, so runs stay unbroken.
  private mutating func vacate(_ slot: Int) {
    var hole = slot
    var next = (slot + 1) & mask
    while hashes[next] != 0 {
      let home = self.home(of: hashes[next])
      // The entry at `next` may move to `hole` unless its home lies after the hole, cyclically,
      // up to `next`.
      let homeAfterHole =
        hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
      if !homeAfterHole {
        hashes[hole] = hashes[next]
        names[hole] = names[next]
        values[hole] = values[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    hashes[hole] = 0
    names[hole] = []
    values[hole] = nil
  }

  private mutating func grow() {
    let old = (hashes, names, values)
    let capacity = hashes.count * 2
    hashes = Array(repeating: 0, count: capacity)
    names = Array(repeating: [], count: capacity)
    values = Array(repeating: nil, count: capacity)
    for slot in old.0.indices where old.0[slot] != 0 {
      place(old.0[slot], old.1[slot], old.2[slot])
    }
  }

  private static func equal(_ stored: [UInt8], _ name: UnsafeRawBufferPointer) -> Bool {
    guard stored.count == name.count else { return false }
    guard let base = name.baseAddress, !stored.isEmpty else { return true }
    return stored.withUnsafeBytes { memcmp($0.baseAddress!, base, name.count) == 0 }
  }
}

extension NameIndex: Sendable where Value: Sendable {}
