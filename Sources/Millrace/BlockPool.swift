/// The blocks of one machine variant, carved from chunks of several blocks each, so that a
/// machine's block carries no allocator header or rounding of its own.
///
/// Guarantees:
/// - `reserve(from:)` allocates only when every block of every chunk is in use; the chunks grow
///   1, 2, 4, ... blocks up to 64 blocks (or 256 KiB) each, so a variant of one machine costs a
///   single block and a variant of many pays one allocator header and link per up to 64
///   machines.
/// - When the variant's last machine goes, every chunk is freed: memory a burst of machines
///   took comes back once they are all removed. Blocks freed while others live stay in the
///   pool for the variant's next spawn.
/// - With bytes reserved for blocks at runtime creation (`_BlockArena`), blocks are carved
///   from those one at a time instead, and never allocated.
/// - Every chunk but the first ends with one pointer that links it to the chunk before.
/// - Loop thread (or single thread) only, like the runtime that owns it.
@usableFromInline
struct _BlockPool {
  /// Bytes between blocks: the block size rounded up to the alignment (at least a pointer,
  /// which a free block holds to link the next free one).
  @usableFromInline let stride: Int
  @usableFromInline let alignment: Int
  /// The first free block; each free block starts with a pointer to the next.
  private var free: UnsafeMutableRawPointer? = nil
  /// The chunk allocated last; each chunk's trailing pointer links the one before.
  private var lastChunk: UnsafeMutableRawPointer? = nil
  /// Chunks allocated; chunk `k` (from 0) has `blocks(inChunk: k)` blocks.
  private var chunkCount = 0
  private let maxChunkBlocks: Int
  /// Blocks taken and not given back.
  @usableFromInline private(set) var live = 0

  /// A pool of blocks of `blockBytes` bytes aligned to `alignment`.
  @usableFromInline
  init(blockBytes: Int, alignment: Int) {
    let pointerSize = MemoryLayout<UnsafeMutableRawPointer>.size
    let alignment = max(alignment, MemoryLayout<UnsafeMutableRawPointer>.alignment)
    self.alignment = alignment
    stride = (max(blockBytes, pointerSize) + alignment - 1) / alignment * alignment
    maxChunkBlocks = max(1, min(64, (256 << 10) / stride))
  }

  /// Makes sure `take()` has a block to give: a free one, else one carved from `arena` when
  /// it has bytes reserved, else a new chunk's. False when there is none: the reserved bytes
  /// are used up, or the chunk cannot be allocated.
  @usableFromInline
  mutating func reserve(from arena: inout _BlockArena) -> Bool {
    guard free == nil else { return true }
    if arena.isReserved {
      guard arena.fits(stride, alignment: alignment) else { return false }
      let block = arena.carve(stride, alignment: alignment)
      block.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
      free = block
      return true
    }
    return addChunk()
  }

  /// An uninitialized block (raw memory of `stride` bytes), after `reserve` answered true.
  @usableFromInline
  mutating func take() -> UnsafeMutableRawPointer {
    let block = free.unsafelyUnwrapped
    free = block.load(as: UnsafeMutableRawPointer?.self)
    live += 1
    return block
  }

  /// Gives back a block from `take()` whose contents were deinitialized.
  @usableFromInline
  mutating func give(_ block: UnsafeMutableRawPointer) {
    live -= 1
    // Chunks from the heap go with the last machine; blocks carved from an arena stay.
    if live == 0 && lastChunk != nil {
      releaseAll()
      return
    }
    block.storeBytes(of: free, as: UnsafeMutableRawPointer?.self)
    free = block
  }

  /// Frees every chunk. Only with no block in use (or when the variant goes).
  @usableFromInline
  mutating func releaseAll() {
    while let chunk = lastChunk {
      chunkCount -= 1
      lastChunk =
        chunkCount == 0
        ? nil
        : link(of: chunk, blocks: blocks(inChunk: chunkCount)).load(
          as: UnsafeMutableRawPointer?.self)
      chunk.deallocate()
    }
    free = nil
  }

  /// Allocates the next chunk and frees its blocks; false when it cannot be allocated.
  private mutating func addChunk() -> Bool {
    let blocks = blocks(inChunk: chunkCount)
    // The first chunk (one block) has no link: a variant of one machine costs one plain block.
    let linkBytes = chunkCount == 0 ? 0 : MemoryLayout<UnsafeMutableRawPointer>.size
    guard let chunk = _Memory.allocate(bytes: blocks * stride + linkBytes, alignment: alignment)
    else { return false }
    if linkBytes > 0 {
      link(of: chunk, blocks: blocks).storeBytes(
        of: lastChunk, as: UnsafeMutableRawPointer?.self)
    }
    lastChunk = chunk
    chunkCount += 1
    // Linked in address order: the lowest block is taken first.
    var index = blocks
    while index > 0 {
      index -= 1
      let block = chunk + index * stride
      block.storeBytes(of: free, as: UnsafeMutableRawPointer?.self)
      free = block
    }
    return true
  }

  /// Where a chunk of `blocks` blocks keeps its link, after its blocks.
  private func link(of chunk: UnsafeMutableRawPointer, blocks: Int) -> UnsafeMutableRawPointer {
    chunk + blocks * stride
  }

  /// Blocks in chunk `index`: 1, 2, 4, ... up to `maxChunkBlocks`.
  private func blocks(inChunk index: Int) -> Int {
    index < 7 ? min(1 << index, maxChunkBlocks) : maxChunkBlocks
  }
}
