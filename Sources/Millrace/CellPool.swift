/// A runtime-wide pool of fixed-size cells, numbered from 0, with a count fixed when the
/// pool is made: the input slots or the effect slots of every machine whose cells have this
/// size, drawn as needed instead of reserved per machine (QP/C's event pools).
///
/// Guarantees:
/// - `take` and `give` never allocate and are O(1); `take` answers nil when all `capacity`
///   cells are in use.
/// - Memory is reserved for `capacity` cells when the pool is made, but a cell is first
///   written when it is first taken (cells are handed out in order until then, and freed
///   ones reused first): on a system with virtual memory, a pool costs what its high-water
///   mark of cells touched, not its capacity.
/// - `releaseMemory()` gives that memory back while no cell is in use, and the pool starts
///   over untouched.
/// - A cell's first 4 bytes hold the free list's link while it is free; its user may keep
///   anything there while it holds the cell.
/// - Loop thread (or single thread) only, like the runtime that owns it.
@usableFromInline
struct _CellPool {
  /// Bytes between cells.
  @usableFromInline let stride: Int
  @usableFromInline let alignment: Int
  /// The most cells in use at once.
  @usableFromInline let capacity: Int
  /// The reserved cells.
  @usableFromInline private(set) var base: UnsafeMutableRawPointer
  /// Cells ever handed out since the pool was made or released (`0..<touched`).
  @usableFromInline private(set) var touched: UInt32 = 0
  /// The first free cell among the touched ones, or `_CellPool.none`.
  @usableFromInline private(set) var free = _CellPool.none
  /// Cells in use.
  @usableFromInline private(set) var live = 0
  /// For users that stamp cells with a generation: above every generation a cell given back
  /// had, so that a cell touched for the first time (or again after `releaseMemory()`) can
  /// start from it and never repeat an earlier cell's stamp. Kept by the user.
  @usableFromInline var generationFloor: UInt32 = 1

  /// No cell.
  @inlinable
  static var none: UInt32 { UInt32.max }

  /// Reserves `capacity` cells of `stride` bytes aligned to `alignment`, or nil when the
  /// memory cannot be allocated (or its size overflows `Int`).
  @usableFromInline
  init?(stride: Int, alignment: Int, capacity: Int) {
    let alignment = max(alignment, MemoryLayout<UInt32>.alignment)
    let stride = (max(stride, MemoryLayout<UInt32>.size) + alignment - 1) / alignment * alignment
    // Below `none`; on a 32-bit target every `Int` is.
    let capacity = min(max(capacity, 1), Int(exactly: UInt32.max - 1) ?? Int.max)
    let (bytes, overflow) = stride.multipliedReportingOverflow(by: capacity)
    guard !overflow, let base = _Memory.allocate(bytes: bytes, alignment: alignment) else {
      return nil
    }
    self.alignment = alignment
    self.stride = stride
    self.capacity = capacity
    self.base = base
  }

  /// The address of cell `index`.
  @inlinable
  func cell(_ index: UInt32) -> UnsafeMutableRawPointer {
    base + Int(index) &* stride
  }

  /// The address of cell `index` of a pool whose cells are `Cell`s (`stride` is then a
  /// constant in specialized code).
  @inlinable
  func cell<Cell>(_ index: UInt32, as type: Cell.Type) -> UnsafeMutablePointer<Cell> {
    base.assumingMemoryBound(to: Cell.self) + Int(index)
  }

  /// Takes a cell, or nil when every cell is in use. A cell taken for the first time is
  /// uninitialized memory (`touched` grew); one taken again holds what it held when given
  /// back, but for its first 4 bytes.
  @inlinable
  mutating func take() -> UInt32? {
    take(as: UInt8.self, stride: stride)
  }

  /// `take()` for a pool of `Cell`s.
  @inlinable
  mutating func take<Cell>(as type: Cell.Type) -> UInt32? {
    take(as: type, stride: MemoryLayout<Cell>.stride)
  }

  @inlinable
  mutating func take<Cell>(as type: Cell.Type, stride: Int) -> UInt32? {
    let index: UInt32
    if free != _CellPool.none {
      index = free
      free = (base + Int(index) &* stride).load(as: UInt32.self)
    } else if Int(touched) < capacity {
      index = touched
      touched &+= 1
    } else {
      return nil
    }
    live &+= 1
    return index
  }

  /// Gives back a cell from `take`, its contents deinitialized.
  @inlinable
  mutating func give(_ index: UInt32) {
    give(index, stride: stride)
  }

  /// `give(_:)` for a pool of `Cell`s.
  @inlinable
  mutating func give<Cell>(_ index: UInt32, as type: Cell.Type) {
    give(index, stride: MemoryLayout<Cell>.stride)
  }

  @inlinable
  mutating func give(_ index: UInt32, stride: Int) {
    (base + Int(index) &* stride).storeBytes(of: free, as: UInt32.self)
    free = index
    live &-= 1
  }

  /// Bytes written so far (the memory the pool holds on a system with virtual memory).
  @usableFromInline
  var touchedBytes: Int { Int(touched) * stride }

  /// When no cell is in use and more than `threshold` bytes were touched, hands the cells'
  /// memory to `release` (to be deallocated) and reserves it afresh, untouched; returns
  /// whether it did. Allocates: not for the hot path.
  @usableFromInline
  mutating func releaseMemory(
    above threshold: Int, handingOff release: (UnsafeMutableRawPointer) -> Void
  ) -> Bool {
    guard live == 0, touchedBytes > threshold,
      let fresh = _Memory.allocate(bytes: stride * capacity, alignment: alignment)
    else { return false }
    release(base)
    base = fresh
    touched = 0
    free = _CellPool.none
    return true
  }

  /// Frees the reserved memory (when the runtime goes).
  @usableFromInline
  func deallocate() {
    base.deallocate()
  }
}
