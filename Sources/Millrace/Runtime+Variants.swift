// The variants machines run under (one per machine type and queue layout), the cell pools
// they draw from, and the effect scratch their resolutions record into.

extension Runtime {
  /// The index of the variant in use for machines of type `M` with `queues` (`M.Queue.policies`
  /// when nil), made now if there is none; nil when a new variant is needed and the variant table
  /// is full. Builds nothing when the variant exists: a spawn costs a scan of the variants, not a
  /// variant. `M.Queue.policies` is read only until a variant of `M` without queues of its own
  /// exists.
  @inlinable
  func _variant<M: Machine>(of type: M.Type, queues: [QueuePolicy]?) -> UInt16? {
    let type = _TypedMachineVariant<M>.type
    if queues == nil {
      // Through the registry's unretained entries: no reference counting per variant looked at.
      let entries = _registry.variants
      for index in 0..<_variants.count
      where entries[index].variant._withUnsafeGuaranteedRef({ $0.type == type && $0.isDefault }) {
        return UInt16(truncatingIfNeeded: index)
      }
    }
    return _variant(of: type, queues: queues, policies: queues ?? M.Queue.policies) {
      _TypedMachineVariant<M>(policies: $0, effectCapacity: $1)
    }
  }

  /// `variant(of:queues:)` past the variants marked default: the variant of `type` with `policies`,
  /// or one `make` builds (from the policies and the effect capacity), now in use.
  @usableFromInline
  func _variant(
    of type: UInt, queues: [QueuePolicy]?, policies: [QueuePolicy],
    make: ([QueuePolicy], Int) -> _MachineVariant
  ) -> UInt16? {
    let effectCapacity = capacity.effectsPerMachine
    let found = _variants.firstIndex {
      $0.matches(type: type, policies: policies, effectCapacity: effectCapacity)
    }
    if let found {
      if queues == nil { _variants[found].isDefault = true }
      return UInt16(truncatingIfNeeded: found)
    }
    guard _variants.count < RuntimeCapacity.maxVariants else { return nil }
    // The variant and the arrays' room first, the checked allocations (`_Memory`) after them: a
    // full allocator then refuses a checked one, never one of these (a stop on Embedded Swift).
    let variant = make(policies, effectCapacity)
    _variants.reserveCapacity(_variants.count + 1)
    _pools.reserveCapacity(_pools.count + 2)
    guard _registry.reserveVariant(at: _variants.count),
      let inputPool = _pool(variant.inputShape, inputs: true),
      let effectPool = _pool(variant.effectShape, inputs: false)
    else { return nil }
    variant.isDefault = queues == nil
    variant.inputPool = inputPool
    variant.effectPool = effectPool
    variant.observer = _observedTypes.first { $0.type == type }?.box.toOpaque()
    _variants.append(variant)
    _rebuildVariantEntries()
    return UInt16(_variants.count - 1)
  }

  /// Rewrites the registry's variant entries from `variants`.
  @usableFromInline
  func _rebuildVariantEntries() {
    for (index, variant) in _variants.enumerated() {
      _registry.setVariant(_VariantEntry(variant), at: index)
    }
  }

  /// The pool of cells of `shape` (input or effect cells), made now if there is none; nil
  /// when its memory cannot be allocated.
  @usableFromInline
  func _pool(_ shape: _CellShape, inputs: Bool) -> UnsafeMutablePointer<_CellPool>? {
    if let found = _pools.first(where: { $0.shape == shape && $0.inputs == inputs }) {
      return found.pool
    }
    guard
      let cells = _CellPool(
        stride: shape.stride, alignment: shape.alignment,
        capacity: inputs ? capacity.inputs : capacity.effects)
    else { return nil }
    guard let pool = _Memory.allocate(_CellPool.self, count: 1) else {
      cells.deallocate()
      return nil
    }
    pool.initialize(to: cells)
    _pools.append((shape, inputs, pool))
    return pool
  }

  /// Makes the effect buffer hold `bytes` aligned to `alignment`; false when it must grow
  /// and the memory cannot be allocated. During a dispatch the buffer it replaces stays
  /// allocated (`retiredScratch`): the resolution under way records into it.
  @usableFromInline
  func _reserveScratch(bytes: Int, alignment: Int) -> Bool {
    guard bytes > _scratchBytes || alignment > 16 else { return true }
    let grown = bytes > _scratchBytes ? bytes : _scratchBytes
    guard let fresh = _Memory.allocate(bytes: grown, alignment: alignment > 16 ? alignment : 16)
    else { return false }
    if _isDispatching {
      _retiredScratch.append(_scratch)
    } else {
      _scratch.deallocate()
      for retired in _retiredScratch { retired.deallocate() }
      _retiredScratch.removeAll()
    }
    _scratch = fresh
    _scratchBytes = grown
    return true
  }
}
