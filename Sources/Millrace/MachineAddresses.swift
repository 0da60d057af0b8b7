extension Runtime {
  /// Where the record of machine slot `index` (`MachineID.index`) is kept, for a host that
  /// warms the cache ahead of a request (a prefetch hint); nil past the runtime's capacity.
  /// Reads no memory: every slot, free or not, has its record.
  public func recordAddress(ofSlot index: UInt32) -> UnsafeRawPointer? {
    guard Int(index) < _registry.capacity else { return nil }
    return UnsafeRawPointer(_registry.records + Int(index))
  }

  /// Where the block (state, extra, queue lists) of the machine in slot `index` is, read from
  /// its record (warm that first); nil when the slot is free or past the runtime's capacity.
  public func blockAddress(ofSlot index: UInt32) -> UnsafeRawPointer? {
    guard Int(index) < _registry.capacity else { return nil }
    return _registry.records[Int(index)].block.map { UnsafeRawPointer($0) }
  }
}
