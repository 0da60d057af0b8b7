/// Growable bytes in memory the buffer owns, for encoding replies: an append is a capacity
/// check and a copy, and emptying keeps the memory (no per-call work of `Array`'s generic
/// `append(contentsOf:)` and `removeAll(keepingCapacity:)`; see `docs/performance-notes.md`).
///
/// Guarantees:
/// - `count` bytes from `base` are the bytes appended since the last `removeAll`; `base` may
///   move when an append grows the buffer (capacity doubles), so never keep it across appends.
/// - The memory is freed when the buffer goes.
/// - Use from one thread at a time (it is a reference type: copies of a `RESPWriter` share it).
public final class ByteBuffer {
  /// The bytes' start.
  @exclusivity(unchecked) @usableFromInline package var base: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) @usableFromInline var used = 0
  @exclusivity(unchecked) @usableFromInline var allocated: Int

  /// An empty buffer with room for `capacity` bytes.
  public init(capacity: Int = ByteBuffer.initialCapacity) {
    allocated = max(capacity, 16)
    base = .allocate(capacity: allocated)
  }

  /// The room a buffer starts with, and returns to after a burst.
  public static let initialCapacity = 256

  /// The number of bytes held.
  @inlinable
  public var count: Int { used }

  /// The bytes that fit before the buffer grows.
  @inlinable
  public var capacity: Int { allocated }

  deinit {
    base.deallocate()
  }

  /// Whether the buffer holds no bytes.
  @inlinable
  public var isEmpty: Bool { count == 0 }

  /// The bytes held, copied into an array.
  public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Calls `body` with the bytes in `range` (all of them by default), in place; they must not
  /// be appended to meanwhile.
  @inlinable
  public func withUnsafeBytes<Result>(
    in range: Range<Int>? = nil, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) rethrows -> Result {
    let range = range ?? 0..<count
    precondition(range.lowerBound >= 0 && range.upperBound <= count, "range out of the buffer")
    return try body(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
  }

  /// Appends one byte.
  @inlinable
  public func append(_ byte: UInt8) {
    if used == allocated { grow(toHold: 1) }
    base[used] = byte
    used += 1
  }

  /// Appends `bytes`, which must not point into this buffer (growing frees the old memory
  /// before they would be copied).
  @inlinable
  public func append(_ bytes: UnsafeRawBufferPointer) {
    guard let source = bytes.baseAddress else { return }
    if allocated - used < bytes.count { grow(toHold: bytes.count) }
    (base + used).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    used += bytes.count
  }

  /// Appends `length` bytes that `write` fills in place (it gets a pointer to the first; it
  /// must write all `length` and nothing beyond).
  @inlinable
  public func append(length: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
    if allocated - used < length { grow(toHold: length) }
    write(base + used)
    used += length
  }

  /// Removes the last `count` bytes (at most all of them); keeps the memory.
  public func removeLast(_ count: Int) {
    precondition(count >= 0, "a negative count")
    used -= min(count, used)
  }

  /// Empties the buffer; keeps its memory unless it grew past `limit` bytes (a burst): then it
  /// returns to its first size, so the memory comes back afterwards.
  public func removeAll(keepingCapacityUpTo limit: Int = .max) {
    used = 0
    guard allocated > limit else { return }
    base.deallocate()
    allocated = Self.initialCapacity
    base = .allocate(capacity: allocated)
  }

  @usableFromInline
  func grow(toHold extra: Int) {
    var newCapacity = allocated * 2
    while newCapacity - used < extra { newCapacity *= 2 }
    let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newBase.update(from: base, count: used)
    base.deallocate()
    base = newBase
    allocated = newCapacity
  }
}
