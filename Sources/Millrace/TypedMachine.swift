/// A typed view of one machine: its record in the runtime's registry, its block (state, extra,
/// bounded queue lists) and its cells in the runtime's input and effect pools, with everything
/// the runtime does to a machine of type `M`.
///
/// One file per concept: the view and its layout here; `+Inputs` (the input queue),
/// `+Dispatch` (steps and resolution), `+Effects` (effects and their queues), `+Observers`,
/// `+Life` (spawn and removal).
///
/// A view is made per operation and never stored. Every method runs on the runtime's thread.
/// Nothing here allocates except `run` effects (which create the job the driver receives),
/// spawning (the block) and the first observer, route or redirect (the side record).
@usableFromInline
struct _TypedMachine<M: Machine> {
  @usableFromInline
  typealias Event = MachineEvent<M.Input, M.State, M.Output>
  /// What an observer of every machine of the type gets (`Runtime.observeAll`).
  @usableFromInline
  typealias TypeEvent = (MachineID, Event)

  /// The runtime, unretained: it outlives every use of a view (it removes its machines before
  /// it goes away). Borrowed through `withRuntime`, never retained. Read from the registry
  /// rather than kept in the view: a view of four words travels in registers to the
  /// out-of-line effect paths, where one of five is written to memory on every dispatch.
  @inlinable
  var runtime: Unmanaged<Runtime> {
    registry._withUnsafeGuaranteedRef { $0.owner.unsafelyUnwrapped }
  }
  /// The runtime's machine registry, unretained (the runtime and every handle hold it): posts and
  /// sends schedule through it directly, not through `runtime.registry`, a load fewer on the way.
  @usableFromInline
  let registry: Unmanaged<_MachineRegistry>
  @usableFromInline
  let index: UInt32
  @usableFromInline
  let record: UnsafeMutablePointer<_MachineRecord>
  /// The machine's variant entry: its layout, pools and observer (valid for the runtime's life,
  /// see `_MachineRegistry.variants`; an observer replaced meanwhile stays valid until the runtime
  /// goes).
  @usableFromInline
  let entry: UnsafePointer<_VariantEntry>
  /// The machine's block (read from the record on each use: a view small enough to travel in
  /// registers is worth more than the load).
  @inlinable
  var block: UnsafeMutableRawPointer { record.pointee.block.unsafelyUnwrapped }

  /// The machine in slot `index` of `registry`, which must hold one (alive or awaiting release).
  @inlinable
  init(registry: _MachineRegistry, index: UInt32) {
    let record = registry.records + Int(index)
    self.init(
      registry: registry, index: index, record: record,
      entry: UnsafePointer(registry.variants + Int(record.pointee.variant)))
  }

  /// The machine in slot `index` of `registry`, with its record and variant entry.
  @inlinable
  init(
    registry: _MachineRegistry, index: UInt32, record: UnsafeMutablePointer<_MachineRecord>,
    entry: UnsafePointer<_VariantEntry>
  ) {
    self.registry = Unmanaged.passUnretained(registry)
    self.index = index
    self.record = record
    self.entry = entry
  }

  /// The variant's layout (read only where effects need it: the input path does not).
  @inlinable
  var layout: UnsafePointer<_BlockLayout> { entry.pointee.layout }

  /// The runtime's pool of this machine's input cells.
  @inlinable
  var inputPool: UnsafeMutablePointer<_CellPool> { entry.pointee.inputs }

  /// Whether the block holds a slot for one queued input (`inlineInput`): when the machine
  /// type reserves one (`Machine.reservesInputSlot`), or when the input fits in the padding
  /// of a block of the state and extra alone (a block is at least a pointer and a whole
  /// number of its alignment, `_BlockPool`), so that the slot does not make a machine bigger.
  /// A constant in specialized code.
  @inlinable
  static var hasInlineSlot: Bool {
    let (state, input, extra) = (
      MemoryLayout<M.State>.self, MemoryLayout<M.Input>.self, MemoryLayout<M.Extra>.self
    )
    if M.reservesInputSlot { return true }
    guard input.size <= 8 else { return false }
    let slotEnd = roundUp(state.size, to: input.alignment) + input.size
    let with = roundUp(slotEnd, to: extra.alignment) + extra.size
    let without = roundUp(state.size, to: extra.alignment) + extra.size
    let alignment = max(MemoryLayout<UnsafeRawPointer>.alignment, state.alignment, extra.alignment)
    // An input of at most 8 bytes is aligned to at most a pointer: `alignment` holds it.
    return roundUp(max(with, MemoryLayout<UnsafeRawPointer>.size), to: alignment)
      == roundUp(max(without, MemoryLayout<UnsafeRawPointer>.size), to: alignment)
  }

  /// `value` rounded up to a multiple of `alignment`.
  @inlinable
  static func roundUp(_ value: Int, to alignment: Int) -> Int {
    (value + alignment - 1) / alignment * alignment
  }

  /// The bytes the block reserves for the inline input (0 without an inline slot).
  @inlinable
  static var inlineInputSize: Int { hasInlineSlot ? MemoryLayout<M.Input>.size : 0 }

  /// The alignment of the inline input (1 without an inline slot, so that it adds no padding).
  @inlinable
  static var inlineInputAlignment: Int { hasInlineSlot ? MemoryLayout<M.Input>.alignment : 1 }

  /// Where the inline input is in the block: after the state, at an offset the types alone
  /// decide (a constant in specialized code), as `_BlockLayout` lays it out.
  @inlinable
  static var inputOffset: Int {
    roundUp(MemoryLayout<M.State>.size, to: inlineInputAlignment)
  }

  /// Where the extra is in the block: after the inline input, as `_BlockLayout` lays it out.
  @inlinable
  static var extraOffset: Int {
    roundUp(inputOffset + inlineInputSize, to: MemoryLayout<M.Extra>.alignment)
  }

  /// Runs `body` with the runtime borrowed, not retained.
  @inlinable
  func withRuntime<Result>(_ body: (Runtime) -> Result) -> Result {
    runtime._withUnsafeGuaranteedRef(body)
  }

  @inlinable
  var id: MachineID { MachineID(index: index, generation: record.pointee.generation) }

  @inlinable
  var isAlive: Bool { record.pointee.isAlive }

  @inlinable
  var state: UnsafeMutablePointer<M.State> { block.assumingMemoryBound(to: M.State.self) }

  @inlinable
  var extra: UnsafeMutablePointer<M.Extra> {
    (block + _TypedMachine.extraOffset).assumingMemoryBound(to: M.Extra.self)
  }

  /// The block's slot for the machine's only queued input, when that input is small,
  /// untagged and no effect's delivery (`append`): while it is there
  /// (`_MachineRecord.inputInBlock`), queuing and dispatching it take no pool cell.
  @inlinable
  var inlineInput: UnsafeMutablePointer<M.Input> {
    (block + _TypedMachine.inputOffset).assumingMemoryBound(to: M.Input.self)
  }

  /// The input cell `index` of `pool` (whose cells are `_InputCell<M.Input>`: a constant
  /// stride in specialized code).
  @inlinable
  static func inputCell(_ pool: UnsafeMutablePointer<_CellPool>, _ index: UInt32)
    -> UnsafeMutablePointer<_InputCell<M.Input>>
  {
    pool.pointee.cell(index, as: _InputCell<M.Input>.self)
  }

  @inlinable
  var effects: _EffectSlots<M.Input> {
    _EffectSlots(
      record: record, owner: index, block: block, pool: entry.pointee.effects,
      layout: entry.pointee.layout)
  }

  /// The side record, if one was made.
  @inlinable
  var side: UnsafeMutablePointer<_MachineSide<M>>? {
    let index = record.pointee.side
    guard index != 0 else { return nil }
    return registry._withUnsafeGuaranteedRef { $0.side(index) }.assumingMemoryBound(
      to: _MachineSide<M>.self)
  }

  /// The side record, made now if there is none yet (not for the hot path); nil when the
  /// memory for it cannot be allocated (`_Memory`).
  @usableFromInline
  func makeSide() -> UnsafeMutablePointer<_MachineSide<M>>? {
    if let side { return side }
    guard let side = _Memory.allocate(_MachineSide<M>.self, count: 1) else { return nil }
    guard
      let index = registry._withUnsafeGuaranteedRef({ $0.addSide(UnsafeMutableRawPointer(side)) })
    else {
      side.deallocate()
      return nil
    }
    side.initialize(to: _MachineSide())
    record.pointee.side = index
    return side
  }

  /// Does `operation`; false only for an observer to remove that the machine does not have.
  @inlinable
  func perform(_ operation: _CellOperation) -> Bool {
    switch operation {
    case .fire(let slot, let generation, let disarmed):
      fire(slot: slot, generation: generation, disarmed: disarmed)
    case .complete(let job): complete(job)
    case .terminate: terminate()
    case .destroy: destroy()
    case .removeObserver(let token): return removeObserver(token: token)
    case .compactObservers: compactObservers()
    }
    return true
  }

  /// A snapshot of the statistics, with the current queue depth.
  @inlinable
  var statistics: MachineStatistics {
    MachineStatistics(
      record.pointee, registry._withUnsafeGuaranteedRef { $0.rareCounts[Int(index)] })
  }
}
