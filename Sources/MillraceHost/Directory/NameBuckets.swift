import CPrefetch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The name index of the machine directory: chained hashing whose chains run through the
/// directory's entries (`DirectoryEntry.next`), so that the index itself is only an array of
/// 32-bit bucket heads, 4 bytes a bucket, with at most one name per `bucketsPerName` buckets
/// on average.
///
/// Guarantees:
/// - Growth and shrinking never stop the loop: like Redis's `dict`, a resize makes a second
///   bucket array and moves the buckets of the first into it a few at a time, on each insert,
///   `find` and removal (`stepsPerOperation` buckets that hold names, skipping at most ten
///   empty buckets per one), and on each `rehash(buckets:)` the owner calls between turns. A
///   doubling moves the old array's N buckets within N / 2 operations (each moves two or
///   more), before the next doubling can be due (N / 2 more inserts), so at most two arrays
///   exist at once and a resize always ends. Lookups search both arrays meanwhile.
/// - Doubles when a name more would leave fewer than `bucketsPerName` buckets a name; halves
///   (or more) once the names fall to a sixteenth of the buckets, down to `minimumBuckets`;
///   frees every array when the last name goes, so a directory emptied by removals gives its
///   index memory back.
/// - `scan(from:count:_:)` has Redis's `SCAN` guarantees, also while two arrays exist (it
///   visits a bucket of the smaller array and every bucket of the larger that split from it,
///   as Redis's `dictScan` does).
/// - Never allocates except to start a resize (one `calloc` of the new array, whose pages the
///   system maps as they are written); the arrays are `calloc`ed so an empty bucket is 0.
/// - Owned by one directory, which passes its entries to every call: not copyable in meaning
///   (copies share the arrays); `deallocate()` frees them.
struct NameBuckets {
  /// One array of bucket heads: each is the first entry's slot + 1, or 0 for an empty bucket.
  struct BucketArray {
    var heads: UnsafeMutablePointer<UInt32>? = nil
    /// The number of buckets (a power of two), or 0 with no array.
    var count = 0

    var mask: Int { count - 1 }

    /// An array of `count` empty buckets.
    static func make(_ count: Int) -> BucketArray {
      let heads = calloc(count, MemoryLayout<UInt32>.stride)!
      return BucketArray(heads: heads.bindMemory(to: UInt32.self, capacity: count), count: count)
    }

    /// Frees the array.
    func release() {
      if let heads { free(heads) }
    }
  }

  /// The array in use (while resizing, the one being emptied).
  private(set) var main = BucketArray()
  /// While resizing, the array the buckets move to; new names go there.
  private(set) var target = BucketArray()
  /// While resizing, the next bucket of `main` to move; -1 otherwise.
  private var rehashIndex = -1
  /// The number of names.
  private(set) var count = 0

  /// The smallest array made.
  static let minimumBuckets = 16
  /// Buckets with names moved per insert, lookup and removal while resizing.
  static let stepsPerOperation = 2
  /// The fewest buckets a name the index keeps (the load stays at or below one half), so
  /// that a lookup's chain is short: at a load near one, a tenth of the names lay third or
  /// further down theirs, past the stages of the daemon's lookahead (Bench/README, "Shorter
  /// chains, and the checkpoint's reads warmed").
  static let bucketsPerName = 2

  /// Whether a resize is under way (two arrays).
  var isResizing: Bool { rehashIndex >= 0 }

  /// Buckets of the array in use (of the array moved to, while resizing).
  var bucketCount: Int { isResizing ? target.count : main.count }

  /// Bytes of bucket arrays held.
  var bytes: Int { (main.count + target.count) * MemoryLayout<UInt32>.stride }

  /// Frees the arrays.
  func deallocate() {
    main.release()
    target.release()
  }

  // MARK: Lookup

  /// The slot of the first entry with `hash` for which `matches` holds, or nil; moves a few
  /// buckets first when resizing.
  @inline(__always)
  mutating func find(
    hash: UInt32, in entries: UnsafeMutablePointer<DirectoryEntry>,
    where matches: (UnsafeMutablePointer<DirectoryEntry>) -> Bool
  ) -> UInt32? {
    guard count > 0 else { return nil }
    if isResizing { rehash(buckets: Self.stepsPerOperation, in: entries) }
    if let found = Self.find(hash: hash, in: main, entries, where: matches) { return found }
    guard isResizing else { return nil }
    return Self.find(hash: hash, in: target, entries, where: matches)
  }

  @inline(__always)
  private static func find(
    hash: UInt32, in array: BucketArray, _ entries: UnsafeMutablePointer<DirectoryEntry>,
    where matches: (UnsafeMutablePointer<DirectoryEntry>) -> Bool
  ) -> UInt32? {
    var link = array.heads.unsafelyUnwrapped[Int(hash) & array.mask]
    while link != 0 {
      let entry = entries + Int(link &- 1)
      if matches(entry) { return link &- 1 }
      link = entry.pointee.next
    }
    return nil
  }

  /// The first entry of `hash`'s bucket in the array in use, as its slot + 1 (0: empty), and
  /// where that head is kept (nil without an array): for warming the cache ahead of a `find`.
  /// While resizing, the array being emptied (a name there may have moved already).
  func head(hash: UInt32) -> (link: UInt32, address: UnsafeRawPointer?) {
    guard let heads = main.heads else { return (0, nil) }
    let head = heads + (Int(hash) & main.mask)
    return (head.pointee, UnsafeRawPointer(head))
  }

  // MARK: Changes

  /// Links the entry in `slot` (its `hash` set, its `next` free to overwrite) at the head of
  /// its bucket; grows first when the names would outnumber the buckets.
  mutating func insert(_ slot: UInt32, in entries: UnsafeMutablePointer<DirectoryEntry>) {
    if main.heads == nil { main = .make(Self.minimumBuckets) }
    if isResizing {
      rehash(buckets: Self.stepsPerOperation, in: entries)
    } else if (count + 1) * Self.bucketsPerName > main.count {
      startResize(to: main.count * 2)
    }
    let array = isResizing ? target : main
    let bucket = Int(entries[Int(slot)].hash) & array.mask
    entries[Int(slot)].next = array.heads.unsafelyUnwrapped[bucket]
    array.heads.unsafelyUnwrapped[bucket] = slot &+ 1
    count += 1
  }

  /// Links the entries in `slots` (each with its `hash` set and its `next` free to overwrite)
  /// as `insert` links each: the same index, built with the bucket heads `slots` will write
  /// warmed `linkDistance` entries ahead, so that their misses overlap instead of following one
  /// another. With no room for them all in the array in use (or during a resize) the entries
  /// are inserted one at a time instead, growing as `insert` grows.
  mutating func insert(
    contentsOf slots: UnsafeBufferPointer<UInt32>, in entries: UnsafeMutablePointer<DirectoryEntry>
  ) {
    guard let heads = main.heads, !isResizing,
      (count + slots.count) * Self.bucketsPerName <= main.count
    else {
      for slot in slots { insert(slot, in: entries) }
      return
    }
    let mask = main.mask
    for position in slots.indices {
      let ahead = position &+ Self.linkDistance
      if ahead < slots.count {
        millrace_prefetch(heads + (Int(entries[Int(slots[ahead])].hash) & mask))
      }
      let slot = Int(slots[position])
      let bucket = Int(entries[slot].hash) & mask
      entries[slot].next = heads[bucket]
      heads[bucket] = UInt32(truncatingIfNeeded: slot) &+ 1
    }
    count += slots.count
  }

  /// How many entries ahead of the one it links `insert(contentsOf:in:)` warms a bucket head.
  static let linkDistance = 16

  /// Makes room for `names` names when the index holds none (a store of known size about to
  /// be restored): one array with `bucketsPerName` buckets a name, so that no resize runs
  /// while they are inserted. Does nothing when names are held or the array is large enough
  /// already.
  mutating func reserve(_ names: Int) {
    guard count == 0, !isResizing, names * Self.bucketsPerName > main.count else { return }
    var buckets = Self.minimumBuckets
    while buckets < names * Self.bucketsPerName { buckets *= 2 }
    main.release()
    main = .make(buckets)
  }

  /// Unlinks the entry in `slot`, which must be linked; shrinks once few buckets are used, and
  /// frees the arrays when it was the last name.
  mutating func remove(_ slot: UInt32, in entries: UnsafeMutablePointer<DirectoryEntry>) {
    if isResizing { rehash(buckets: Self.stepsPerOperation, in: entries) }
    let hash = Int(entries[Int(slot)].hash)
    let unlinked =
      Self.unlink(slot, from: main, bucket: hash & main.mask, entries)
      || (isResizing && Self.unlink(slot, from: target, bucket: hash & target.mask, entries))
    precondition(unlinked, "a directory entry was not in its bucket")
    count -= 1
    if count == 0 {
      deallocate()
      self = NameBuckets()
    } else if !isResizing, main.count > Self.minimumBuckets,
      count * 8 * Self.bucketsPerName <= main.count
    {
      var size = Self.minimumBuckets
      while size < count * 2 * Self.bucketsPerName { size *= 2 }
      startResize(to: size)
    }
  }

  private static func unlink(
    _ slot: UInt32, from array: BucketArray, bucket: Int,
    _ entries: UnsafeMutablePointer<DirectoryEntry>
  ) -> Bool {
    let heads = array.heads.unsafelyUnwrapped
    var previous: UnsafeMutablePointer<DirectoryEntry>? = nil
    var link = heads[bucket]
    while link != 0 {
      let entry = entries + Int(link &- 1)
      if link &- 1 == slot {
        if let previous {
          previous.pointee.next = entry.pointee.next
        } else {
          heads[bucket] = entry.pointee.next
        }
        entry.pointee.next = 0
        return true
      }
      previous = entry
      link = entry.pointee.next
    }
    return false
  }

  // MARK: Resizing

  private mutating func startResize(to size: Int) {
    target = .make(size)
    rehashIndex = 0
  }

  /// Moves up to `buckets` buckets holding names (visiting at most ten empty ones per bucket
  /// asked) from the array being emptied to the new one, and ends the resize when none is
  /// left; does nothing when not resizing. Bounded: at most `11 × buckets` buckets and the
  /// names of `buckets` of them.
  mutating func rehash(buckets: Int, in entries: UnsafeMutablePointer<DirectoryEntry>) {
    guard isResizing else { return }
    let from = main.heads.unsafelyUnwrapped
    let to = target.heads.unsafelyUnwrapped
    let mask = UInt32(truncatingIfNeeded: target.mask)
    var moves = buckets
    var emptyVisits = buckets * 10
    while moves > 0 && rehashIndex < main.count {
      var link = from[rehashIndex]
      guard link != 0 else {
        rehashIndex += 1
        emptyVisits -= 1
        if emptyVisits == 0 { break }
        continue
      }
      from[rehashIndex] = 0
      while link != 0 {
        let entry = entries + Int(link &- 1)
        let next = entry.pointee.next
        let bucket = Int(entry.pointee.hash & mask)
        entry.pointee.next = to[bucket]
        to[bucket] = link
        link = next
      }
      rehashIndex += 1
      moves -= 1
    }
    if rehashIndex == main.count {
      main.release()
      main = target
      target = BucketArray()
      rehashIndex = -1
    }
  }

  // MARK: Scanning

  /// Visits about `count` buckets from `cursor` (Redis's `SCAN` step), passing `body` the slot
  /// of each entry in them; returns the cursor to go on from (0 when the iteration is done).
  ///
  /// A full iteration starts at cursor 0 and calls again with each cursor returned until one
  /// is 0; the index may change in any way between calls. Guarantees, as Redis's:
  /// - A name held from the first call to the last is passed at least once, whatever resizes
  ///   happened in between; one added or removed meanwhile may be passed or not.
  /// - A name is passed at most once per call; it may be passed again in a later call only if
  ///   the index shrank during the iteration (growth never repeats a bucket).
  /// - The cursor returned is below the smaller array's bucket count; an empty index returns
  ///   0 at once; any cursor is safe to pass, even one no call returned.
  /// - Work: `count` (clamped to 1 ... the smaller array's bucket count) buckets of the smaller
  ///   array and, while resizing, the buckets of the larger that split from them, with their
  ///   chains: O(`count`) at the load kept (at most one name per `bucketsPerName` buckets on
  ///   average).
  /// - `body` must not change the index, nor look names up (`find` moves buckets while
  ///   resizing).
  func scan(
    from cursor: UInt64, count: Int, in entries: UnsafeMutablePointer<DirectoryEntry>,
    _ body: (UInt32) -> Void
  ) -> UInt64 {
    guard self.count > 0 else { return 0 }
    let (small, large) =
      !isResizing
      ? (main, BucketArray()) : main.count <= target.count ? (main, target) : (target, main)
    let smallMask = UInt64(small.mask)
    let largeMask = UInt64(max(large.mask, 0))
    var cursor = cursor
    for _ in 0..<min(max(count, 1), small.count) {
      Self.visit(small, bucket: Int(cursor & smallMask), entries, body)
      if large.count > 0 {
        // Every bucket of the larger array whose low bits are this one's.
        var expanded = cursor
        repeat {
          Self.visit(large, bucket: Int(expanded & largeMask), entries, body)
          expanded = (((expanded | smallMask) &+ 1) & ~smallMask) | (expanded & smallMask)
        } while expanded & (smallMask ^ largeMask) != 0
      }
      cursor = cursor.nextScanCursor(mask: smallMask)
      if cursor == 0 { break }
    }
    return cursor
  }

  private static func visit(
    _ array: BucketArray, bucket: Int, _ entries: UnsafeMutablePointer<DirectoryEntry>,
    _ body: (UInt32) -> Void
  ) {
    var link = array.heads.unsafelyUnwrapped[bucket]
    while link != 0 {
      body(link &- 1)
      link = entries[Int(link &- 1)].next
    }
  }
}
