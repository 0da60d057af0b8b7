extension Runtime {
  /// The bytes of the record of machine slot `index` (`MachineID.index`), for a host that
  /// warms the cache ahead of a request (a prefetch hint); nil past the runtime's capacity.
  /// Reads no memory: every slot, free or not, has its record. A record is one cache line,
  /// which holds a small block too (`blockBytes(ofSlot:)` then points into it).
  @inlinable
  public func recordBytes(ofSlot index: UInt32) -> UnsafeRawBufferPointer? {
    guard Int(index) < _registry.capacity else { return nil }
    return UnsafeRawBufferPointer(
      start: _registry.records + Int(index), count: MemoryLayout<_MachineRecord>.size)
  }

  /// The bytes of the block (state, extra, queue lists) of the machine in slot `index`, read
  /// from its record (warm that first); nil when the slot is free or was never used.
  @inlinable
  public func blockBytes(ofSlot index: UInt32) -> UnsafeRawBufferPointer? {
    guard index < _registry.initialized else { return nil }
    let record = _registry.records + Int(index)
    guard let block = record.pointee.block else { return nil }
    let layout = _registry.variants[Int(record.pointee.variant)].layout
    return UnsafeRawBufferPointer(start: block, count: layout.pointee.blockBytes)
  }

  /// `blockBytes(ofSlot:)` for a block that is not in the record (whose line a caller that
  /// warmed the record has warmed already): nil also when the block lives in the record.
  @inlinable @inline(__always)
  public func separateBlockBytes(ofSlot index: UInt32) -> UnsafeRawBufferPointer? {
    guard index < _registry.initialized else { return nil }
    let record = _registry.records + Int(index)
    guard let block = record.pointee.block, block != record._blockArea else { return nil }
    let layout = _registry.variants[Int(record.pointee.variant)].layout
    return UnsafeRawBufferPointer(start: block, count: layout.pointee.blockBytes)
  }
}
