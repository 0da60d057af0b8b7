/// Bytes reserved when a runtime is created, from which machine blocks are carved when
/// `RuntimeCapacity.blockBytes` is set: spawns then never allocate.
///
/// Guarantees:
/// - Blocks are carved in order and never given back to the arena; a removed machine's block
///   stays with its variant (`_BlockPool`) for the variant's next spawn.
/// - With no bytes reserved, `isReserved` is false and nothing is carved.
@usableFromInline
struct _BlockArena {
  @usableFromInline let base: UnsafeMutableRawPointer?
  @usableFromInline let size: Int
  /// Bytes carved so far (with alignment padding).
  @usableFromInline private(set) var used = 0

  /// Reserves `bytes` (none for 0), or nil when they cannot be allocated.
  @usableFromInline
  init?(bytes: Int) {
    size = max(0, bytes)
    if size > 0 {
      guard let base = _Memory.allocate(bytes: size, alignment: 16) else { return nil }
      self.base = base
    } else {
      base = nil
    }
  }

  /// Whether blocks come from here rather than from the heap.
  @usableFromInline
  var isReserved: Bool { base != nil }

  /// Whether a block of `bytes` aligned to `alignment` still fits.
  @usableFromInline
  func fits(_ bytes: Int, alignment: Int) -> Bool {
    (used + alignment - 1) / alignment * alignment + bytes <= size
  }

  /// The next `bytes` aligned to `alignment`; the caller checked `fits`.
  @usableFromInline
  mutating func carve(_ bytes: Int, alignment: Int) -> UnsafeMutableRawPointer {
    let start = (used + alignment - 1) / alignment * alignment
    used = start + bytes
    return base.unsafelyUnwrapped + start
  }

  /// Frees the reserved bytes (when the runtime goes).
  @usableFromInline
  func deallocate() {
    base?.deallocate()
  }
}
