// Machines coming and going: spawn (a slot, a block, room in the effect scratch) and removal.

extension Runtime {
  /// Spawns a machine of type `M` in `state`, with its dependencies `extra`.
  ///
  /// Takes the machine's block (its state, extra and bounded queues' lists) from the bytes
  /// reserved by `capacity.blockBytes` when set (never allocating), else from its variant's
  /// chunks. The machine may queue `inputCapacity` inputs (default
  /// `capacity.inputsPerMachine`, at most `RuntimeCapacity.maxInputs`), drawn from the
  /// runtime's input pool as they come. `queues` overrides `M.Queue.policies` (for machines
  /// whose `Queue` is `EffectQueue`, the layout is given so). Throws `SpawnError`,
  /// saying why, and counts it, when it cannot: every machine slot is taken, the reserved
  /// block bytes are used up, the runtime already has `RuntimeCapacity.maxVariants` variants and
  /// this would be a new one, or (Embedded Swift) the memory for a new variant, its pools or a
  /// chunk of blocks cannot be allocated.
  ///
  /// The machine's slot (its handle's `id.index`) is `preferredSlot` when no machine has had
  /// that slot yet (it is at or above every slot handed out so far, and below
  /// `capacity.machines`); the slots skipped below it are free and taken first by later spawns.
  /// Otherwise, and when nil, it is any free slot. Spawning in ascending preferred slots into
  /// an empty runtime so puts every machine in the slot asked for: what a restore of machines
  /// stored by slot relies on.
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, extra: M.Extra, queues: [QueuePolicy]? = nil,
    inputCapacity: Int? = nil, preferredSlot: UInt32? = nil
  ) throws(SpawnError) -> MachineHandle<M> {
    _registry.assertOnItsThread()
    guard _registry.hasFreeSlot else { throw refuseSpawn(.machineSlotsFull) }
    let (variant, index) = try _reserveSpawn(
      variant: _variant(of: type, queues: queues),
      effectBytes: MemoryLayout<Effect<M.Input, M.Output>>.stride * capacity.effectsPerResolution,
      effectAlignment: MemoryLayout<Effect<M.Input, M.Output>>.alignment,
      preferredSlot: preferredSlot)
    _TypedMachine<M>.spawn(
      runtime: self, index: index, variant: variant, state: state, extra: extra,
      inputCapacity: RuntimeCapacity._clamp(
        inputCapacity ?? capacity.inputsPerMachine, to: RuntimeCapacity.maxInputs))
    _counters.machines += 1
    if _counters.machines > _counters.machinesHighWater {
      _counters.machinesHighWater = _counters.machines
    }
    return MachineHandle(
      registry: _registry,
      id: MachineID(index: index, generation: _registry.records[Int(index)].generation))
  }

  /// Spawns a machine that needs no dependencies.
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, queues: [QueuePolicy]? = nil, inputCapacity: Int? = nil,
    preferredSlot: UInt32? = nil
  ) throws(SpawnError) -> MachineHandle<M> where M.Extra == Void {
    try spawn(
      type, state: state, extra: (), queues: queues, inputCapacity: inputCapacity,
      preferredSlot: preferredSlot)
  }

  /// Reserves what a machine of `variant` (nil: no variant could be had) needs before it is made,
  /// once a free slot is known to exist: a block (unless it lives in the record,
  /// `_MachineRecord.holdsInline`), room in the effect scratch for
  /// `effectBytes`, then the slot (`preferredSlot` if it can be had, as `spawn` says). Returns
  /// the variant and the slot taken; throws, counting the refusal, when one is missing (no slot
  /// is taken then: it is taken last; what was reserved before the failure stays for the next
  /// spawn).
  @usableFromInline
  func _reserveSpawn(
    variant: UInt16?, effectBytes: Int, effectAlignment: Int, preferredSlot: UInt32?
  ) throws(SpawnError) -> (variant: UInt16, index: UInt32) {
    guard let variant else {
      throw refuseSpawn(
        _variants.count >= RuntimeCapacity.maxVariants ? .variantsFull : .outOfMemory)
    }
    let entry = _registry.variants + Int(variant)
    guard
      _MachineRecord.holdsInline(entry.pointee.layout)
        || entry.pointee.variant._withUnsafeGuaranteedRef({
          $0.blocks.reserve(from: &_blockArena)
        })
    else { throw refuseSpawn(_blockArena.isReserved ? .blockBytesUsedUp : .outOfMemory) }
    guard _reserveScratch(bytes: effectBytes, alignment: effectAlignment) else {
      throw refuseSpawn(.outOfMemory)
    }
    let index =
      if let preferredSlot { _registry.takeSlot(preferring: preferredSlot) } else {
        _registry.takeFreeSlot()
      }
    return (variant, index.unsafelyUnwrapped)
  }

  /// Counts a refused spawn and returns why, to be thrown.
  @usableFromInline
  func refuseSpawn(_ error: SpawnError) -> SpawnError {
    _counters.spawnsRefused &+= 1
    return error
  }

  /// Removes a machine: cancels all its in-flight effects and timers, drops its queued inputs;
  /// its observers see nothing more and posts to it answer `.noMachine`.
  public func remove<M: Machine>(_ handle: MachineHandle<M>) {
    _registry.assertOnItsThread()
    guard handle._registry === _registry, _registry.liveRecord(handle.id) != nil else { return }
    _terminate(handle.id.index)
  }

  /// Removes the live machine in slot `index`. Its block and slot are freed now, or, while
  /// it is in the ready list or being dispatched, by `dispatch` when it takes the slot off.
  @usableFromInline
  func _terminate(_ index: UInt32) {
    perform(.terminate, on: index)
    _counters.machines -= 1
    if !_registry.records[Int(index)].isScheduled { _releaseIndex(index) }
  }

  /// Frees a dead machine's block and slot (neither in the ready list nor being dispatched).
  @usableFromInline
  func _releaseIndex(_ index: UInt32) {
    guard index != _registry.release else {
      // Off the ready list again, and no observer is being called here (nor is the
      // runtime's last reference released: the dispatch's caller holds one).
      _registry.records[Int(index)].next = _MachineRecord.none
      return _releaseRetiredObservers()
    }
    perform(.destroy, on: index)
    _registry.freeSlot(index)
  }

  /// Runs `operation` on the machine in slot `index` through its variant.
  @discardableResult
  func perform(_ operation: _CellOperation, on index: UInt32) -> Bool {
    let registry = self._registry
    return registry.variants[Int(registry.records[Int(index)].variant)].variant
      ._withUnsafeGuaranteedRef {
        $0.perform(registry, index, operation)
      }
  }
}
