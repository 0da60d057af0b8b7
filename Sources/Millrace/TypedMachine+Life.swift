/// Life: filling a slot with a new machine, and removing it (in two steps: `terminate` while
/// it may be mid-dispatch, `destroy` once it is not).
extension _TypedMachine {
  /// Fills slot `index`'s record and a new block for a machine in `state` that may queue
  /// `inputCapacity` inputs.
  @inlinable
  static func spawn(
    runtime: Runtime, index: UInt32, variant variantIndex: UInt16, state: M.State, extra: M.Extra,
    inputCapacity: Int
  ) {
    let entry = runtime._registry.variants + Int(variantIndex)
    let layout = entry.pointee.layout
    precondition(
      layout.pointee.inputOffset == inputOffset && layout.pointee.extraOffset == extraOffset,
      "the block layout and the typed offsets disagree")
    let record = runtime._registry.records + Int(index)
    let generation = record.pointee.generation
    record.initialize(to: _MachineRecord())
    record.pointee.generation = generation
    // A small block lives in the record itself; a larger one comes from the variant's pool.
    let inline = _MachineRecord.holdsInline(layout)
    let block =
      inline
      ? record._blockArea : entry.pointee.variant._withUnsafeGuaranteedRef { $0.blocks.take() }
    record.pointee.block = block
    runtime._registry.rareCounts[Int(index)] = _RareCounts()
    block.bindMemory(to: M.State.self, capacity: 1).initialize(to: state)
    (block + layout.pointee.extraOffset).bindMemory(to: M.Extra.self, capacity: 1).initialize(
      to: extra)
    (block + layout.pointee.listsOffset).bindMemory(
      to: _SlotList.self, capacity: 2 * layout.pointee.listCount)
    record.pointee.variant = variantIndex
    record.pointee.inputCapacity = UInt16(truncatingIfNeeded: inputCapacity)
    record.pointee.isAlive = true
    _EffectSlots<M.Input>(
      record: record, owner: index, block: block, pool: entry.pointee.effects, layout: layout
    ).initialize()
  }

  /// Cancels every effect and timer and drops queued inputs, giving their cells back to the
  /// pools; observers see nothing more. The block and side record stay until `destroy` (the
  /// machine may be mid-dispatch).
  @inlinable
  func terminate() {
    guard isAlive else { return }
    record.pointee.isAlive = false
    registry._withUnsafeGuaranteedRef { $0.retire(index) }
    let effects = self.effects
    while case let index = record.pointee.effectHead, index != _CellPool.none {
      let timer = effects.slot(index).pointee.timer
      withRuntime { runtime in
        if timer != _TimerHeap.none { runtime._disarmTimer(timer) }
        runtime._counters.effectsCancelled &+= 1
      }
      effects.release(index)
    }
    while popFirst() != nil {}
  }

  /// Frees the block and the side record of a terminated machine.
  @usableFromInline
  func destroy() {
    while popFirst() != nil {}
    effects.deinitialize()
    state.deinitialize(count: 1)
    extra.deinitialize(count: 1)
    if !record._isBlockInline {
      let variant = Int(record.pointee.variant)
      withRuntime {
        $0._registry.variants[variant].variant.takeUnretainedValue().blocks.give(block)
      }
    }
    record.pointee.block = nil
    if let side {
      let index = record.pointee.side
      record.pointee.side = 0
      registry._withUnsafeGuaranteedRef { $0.removeSide(index) }
      side.pointee.observers.removeAll()
      side.deinitialize(count: 1)
      side.deallocate()
    }
  }
}
