/// Hosts machines and dispatches their inputs, run-to-completion, on one thread.
///
/// Guarantees:
/// - Single-threaded: every method must be called on the thread that drives the runtime.
/// - Run-to-completion: one input is resolved, replied to and its effects applied before the
///   next input of any machine is resolved.
/// - FIFO and fair: one machine's inputs in arrival order; machines with queued inputs
///   are served round-robin, one input per step.
/// - Fixed capacity (`RuntimeCapacity`): nothing on the hot path (post, dispatch, resolve,
///   reply, send, emit, after, every, cancel) allocates, and overflow of any pool is counted
///   and reported to `onDiagnostic`, never a crash.
/// - Not re-entrant: `dispatch` called from an observer returns 0, so no state is accessed
///   twice at once; the hot stored properties therefore skip Swift's dynamic exclusivity
///   checks (`@exclusivity(unchecked)`), which would otherwise cost more than the dispatch.
/// - The runtime never reads a clock: the driver passes time in with `advance(to:)` and asks
///   for `nextDeadline` (see `ManualDriver` for tests and bare-metal loops).
public final class Runtime {
  /// The capacities fixed at creation.
  public let capacity: RuntimeCapacity
  /// Called for each overflow of a fixed pool (also counted in statistics).
  ///
  /// Read (copied out, then called) on paths that are otherwise free of exclusivity checks,
  /// so it skips them too: a callback that replaces it while running is safe.
  @exclusivity(unchecked)
  public var onDiagnostic: ((Diagnostic) -> Void)?
  /// Called with each job a `run` effect starts, on the runtime's thread: the driver's
  /// (`installJobExecutor`), which executes it (on any thread) and hands it back to
  /// `complete(_:)` on the runtime's thread. When nil, jobs execute synchronously, inline, and
  /// complete at once.
  public private(set) var jobExecutor: ((PendingJob) -> Void)?

  @usableFromInline
  @exclusivity(unchecked)
  var _currentTime = Instant.zero
  @usableFromInline
  @exclusivity(unchecked)
  var _counters = RuntimeStatistics()
  /// The machine records, with the free and ready lists.
  @usableFromInline
  let _registry: _MachineRegistry
  /// The machine variants in use: one per machine type and queue layout, kept for the runtime's
  /// life. Records name them by index into the registry's `variants`, which
  /// mirrors this array unretained so that dispatch reaches a variant without retaining it.
  /// Spawns read it and no access to it calls out of the runtime, so it skips exclusivity
  /// checks, as `_blockArena` does (a spawn paid more for the checks than for the rest).
  @usableFromInline
  @exclusivity(unchecked)
  var _variants: [_MachineVariant] = []
  /// The bytes reserved for machine blocks (`capacity.blockBytes`), if any.
  @usableFromInline
  @exclusivity(unchecked)
  var _blockArena: _BlockArena
  /// The input and effect pools, one per cell shape, made when a variant first needs one; variants
  /// point into them.
  @usableFromInline
  var _pools: [(shape: _CellShape, inputs: Bool, pool: UnsafeMutablePointer<_CellPool>)] = []
  /// The observers of whole machine types (`observeAll`), one per type at most: the type
  /// (`_MachineVariant.type`) and the box its variants point to, retained.
  @usableFromInline
  var _observedTypes: [(type: UInt, box: Unmanaged<_AnyObserverBox>)] = []
  @usableFromInline
  @exclusivity(unchecked)
  var _timers: _TimerHeap
  @usableFromInline
  @exclusivity(unchecked)
  var _scratch: UnsafeMutableRawPointer
  @usableFromInline
  @exclusivity(unchecked)
  var _scratchBytes: Int
  /// Effect buffers that `reserveScratch` replaced during a dispatch, when a resolution in
  /// progress may still be reading one (a spawn by an observer): freed by the next
  /// replacement outside a dispatch, or with the runtime.
  @usableFromInline
  var _retiredScratch: [UnsafeMutableRawPointer] = []
  /// The index of the last effect a resolution may record (`capacity.effectsPerResolution`
  /// less one): what `Effects` compares with, ready-made for every resolution.
  @usableFromInline
  let _lastEffectIndex: UInt
  /// Observers removed and not yet released (`retire`), each with the machine whose list
  /// holds a placeholder in its place (removed during a dispatch), if any.
  @usableFromInline
  @exclusivity(unchecked)
  var _retiredObservers: [(box: Unmanaged<_AnyObserverBox>, machine: MachineID?)] = []
  @usableFromInline
  @exclusivity(unchecked)
  var _isDispatching = false
  /// The step limit of the running `dispatch` (its steps taken so far are this minus
  /// `registry.stepsLeft`).
  @usableFromInline
  @exclusivity(unchecked)
  var _dispatchLimit = 0

  /// Reserves every runtime-wide pool at the given capacities; stops the program when they
  /// cannot be allocated (`init(reserving:)` answers nil instead).
  public convenience init(capacity: RuntimeCapacity = RuntimeCapacity()) {
    self.init(reserving: capacity)!
  }

  /// Reserves every runtime-wide pool at the given capacities, or nil when the memory cannot
  /// be allocated (Embedded Swift; the full Swift runtime stops the program instead).
  ///
  /// A convenience initializer, so that the runtime object is allocated only once its pools
  /// are: Embedded Swift does not free the object of a class initializer that fails.
  public convenience init?(reserving capacity: RuntimeCapacity) {
    var capacity = capacity
    capacity.inputsPerMachine = RuntimeCapacity._clamp(
      capacity.inputsPerMachine, to: RuntimeCapacity.maxInputs)
    capacity.effectsPerMachine = RuntimeCapacity._clamp(
      capacity.effectsPerMachine, to: RuntimeCapacity.maxEffects)
    // Room for the effects of integer machines (those of the C API); a variant whose effects are
    // larger grows it when first spawned (`reserveScratch`).
    let scratchBytes =
      MemoryLayout<Effect<Int32, Int32>>.stride * capacity.effectsPerResolution
    guard let registry = _MachineRegistry(capacity: capacity.machines) else { return nil }
    guard let timers = _TimerHeap(capacity: capacity.timers) else { return nil }
    guard let blockArena = _BlockArena(bytes: capacity.blockBytes) else {
      timers.deallocate()
      return nil
    }
    guard let scratch = _Memory.allocate(bytes: scratchBytes, alignment: 16) else {
      timers.deallocate()
      blockArena.deallocate()
      return nil
    }
    self.init(
      capacity: capacity, registry: registry, timers: timers, blockArena: blockArena,
      scratch: scratch, scratchBytes: scratchBytes)
  }

  private init(
    capacity: RuntimeCapacity, registry: _MachineRegistry, timers: _TimerHeap,
    blockArena: _BlockArena,
    scratch: UnsafeMutableRawPointer, scratchBytes: Int
  ) {
    self.capacity = capacity
    self._registry = registry
    self._blockArena = blockArena
    self._timers = timers
    self._scratchBytes = scratchBytes
    self._scratch = scratch
    _lastEffectIndex = UInt(capacity.effectsPerResolution - 1)
    registry.owner = Unmanaged.passUnretained(self)
  }

  deinit {
    for index in 0..<_registry.initialized where _registry.records[Int(index)].block != nil {
      perform(.terminate, on: index)
      perform(.destroy, on: index)
    }
    _registry.owner = nil
    for (_, _, pool) in _pools {
      pool.pointee.deallocate()
      pool.deallocate()
    }
    for observed in _observedTypes { observed.box.release() }
    _blockArena.deallocate()
    _timers.deallocate()
    _scratch.deallocate()
    for retired in _retiredScratch { retired.deallocate() }
    _releaseRetiredObservers()
  }

  /// The latest instant passed to `advance(to:)`.
  public var now: Instant { _currentTime }

  /// A snapshot of the runtime's counters and high-water marks.
  public var statistics: RuntimeStatistics {
    var statistics = _counters
    // Turns of the running dispatch are added to the counters when it returns.
    if _isDispatching {
      statistics.dispatched &+= UInt64(truncatingIfNeeded: _dispatchLimit &- _registry.stepsLeft)
    }
    return statistics
  }

  // MARK: Machines

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
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, extra: M.Extra, queues: [QueuePolicy]? = nil,
    inputCapacity: Int? = nil
  ) throws(SpawnError) -> MachineHandle<M> {
    _registry.assertOnItsThread()
    guard _registry.hasFreeSlot else { throw refuseSpawn(.machineSlotsFull) }
    let (variant, index) = try _reserveSpawn(
      variant: _variant(of: type, queues: queues),
      effectBytes: MemoryLayout<Effect<M.Input, M.Output>>.stride * capacity.effectsPerResolution,
      effectAlignment: MemoryLayout<Effect<M.Input, M.Output>>.alignment)
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
    _ type: M.Type, state: M.State, queues: [QueuePolicy]? = nil, inputCapacity: Int? = nil
  ) throws(SpawnError) -> MachineHandle<M> where M.Extra == Void {
    try spawn(type, state: state, extra: (), queues: queues, inputCapacity: inputCapacity)
  }

  /// Reserves what a machine of `variant` (nil: no variant could be had) needs before it is made,
  /// once a free slot is known to exist: a block, room in the effect scratch for
  /// `effectBytes`, then the slot. Returns the variant and the slot taken; throws, counting the
  /// refusal, when one is missing (no slot is taken then: it is taken last; what was reserved
  /// before the failure stays for the next spawn).
  @usableFromInline
  func _reserveSpawn(
    variant: UInt16?, effectBytes: Int, effectAlignment: Int
  ) throws(SpawnError) -> (variant: UInt16, index: UInt32) {
    guard let variant else {
      throw refuseSpawn(
        _variants.count >= RuntimeCapacity.maxVariants ? .variantsFull : .outOfMemory)
    }
    guard
      _registry.variants[Int(variant)].variant._withUnsafeGuaranteedRef({
        $0.blocks.reserve(from: &_blockArena)
      })
    else { throw refuseSpawn(_blockArena.isReserved ? .blockBytesUsedUp : .outOfMemory) }
    guard _reserveScratch(bytes: effectBytes, alignment: effectAlignment) else {
      throw refuseSpawn(.outOfMemory)
    }
    return (variant, _registry.takeFreeSlot().unsafelyUnwrapped)
  }

  /// Counts a refused spawn and returns why, to be thrown (also by the C API, whose own
  /// limits refuse spawns the runtime never sees).
  @usableFromInline
  package func refuseSpawn(_ error: SpawnError) -> SpawnError {
    _counters.spawnsRefused &+= 1
    return error
  }

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

  /// Gives back to the system the memory of tables and pools that hold nothing now (the
  /// machine registry once every machine is removed, a pool once its cells are all free, the
  /// timer table once no timer is armed), when more than `threshold` bytes of it were used;
  /// they are reserved afresh, untouched. Returns the bytes given back. Allocates: call it
  /// off the hot path, e.g. when a driver is idle or after removing many machines.
  @discardableResult
  public func releaseMemory(above threshold: Int = 64 << 10) -> Int {
    var released = 0
    for (_, _, pool) in _pools {
      let bytes = pool.pointee.touchedBytes
      if pool.pointee.releaseMemory(above: threshold) { released += bytes }
    }
    let timerBytes = _timers.touchedBytes
    if _timers.releaseMemory(above: threshold) { released += timerBytes }
    if !_isDispatching {
      let tableBytes = _registry.touchedBytes
      if _registry.releaseMemory(above: threshold) { released += tableBytes }
    }
    return released
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

  /// Calls `observer` with every later reply and output of every machine of type `M`, with the
  /// machine's id: after the machine's own observers, until the returned observation is
  /// cancelled or the runtime goes. A later call replaces the earlier observer of the type
  /// (whose observation then cancels nothing). One observer for a whole type costs no memory
  /// per machine (`MachineHandle.observe` makes a side record per machine).
  ///
  /// The runtime keeps the observer: one that captures the runtime (or anything that owns
  /// it) strongly keeps the runtime alive until `Observation.cancel()`.
  ///
  /// Inlinable, so that the box's closure is specialized for `M` where the caller knows it:
  /// unspecialized, it would look up the metadata of the event's tuple type on every event.
  @inlinable
  @discardableResult
  public func observeAll<M: Machine>(
    _ type: M.Type,
    _ observer: @escaping (MachineID, MachineEvent<M.Input, M.State, M.Output>) -> Void
  ) -> Observation {
    _registry.assertOnItsThread()
    let box = _ObserverBox<_TypedMachine<M>.TypeEvent>(token: _registry.newObserverToken()) {
      observer($0.0, $0.1)
    }
    let observation = Observation(
      registry: _registry, type: _TypedMachineVariant<M>.type, token: box.token)
    _setObserver(of: observation._type, to: Unmanaged.passRetained(box))
    if !_isDispatching { _releaseRetiredObservers() }
    return observation
  }

  /// Makes `box` (retained) the observer of every machine of `type`, now and later (nil:
  /// none). The one it replaces is retired (`retire`).
  @usableFromInline
  func _setObserver(of type: UInt, to box: Unmanaged<_AnyObserverBox>?) {
    for variant in _variants where variant.type == type { variant.observer = box?.toOpaque() }
    _rebuildVariantEntries()
    for observed in _observedTypes where observed.type == type { _retire(observed.box) }
    _observedTypes.removeAll { $0.type == type }
    if let box { _observedTypes.append((type, box)) }
  }

  /// Removes the observer of every machine of `type` if it is registration `token`'s; false
  /// when it is not (cancelled, or replaced by a later `observeAll`).
  @usableFromInline
  func _removeObserver(of type: UInt, token: UInt64) -> Bool {
    guard
      let current = _observedTypes.first(where: { $0.type == type }),
      current.box._withUnsafeGuaranteedRef({ $0.token == token })
    else { return false }
    _setObserver(of: type, to: nil)
    return true
  }

  /// A handle to the live machine `id` names, when the caller knows it is of type `M` (the
  /// C API, whose machines all are); nil when no live machine has that id.
  @usableFromInline
  package func handle<M: Machine>(to id: MachineID, of type: M.Type) -> MachineHandle<M>? {
    guard _registry.liveRecord(id) != nil else { return nil }
    return MachineHandle(registry: _registry, id: id)
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

  // MARK: Driving

  /// Whether any machine has queued inputs.
  public var hasPendingInputs: Bool { _registry.hasReady }

  /// The earliest armed timer's deadline, or nil when no timer is armed.
  public var nextDeadline: Instant? {
    _timers.earliestDeadline.map { Instant(nanoseconds: $0) }
  }

  /// Moves time forward to `instant` (never backward) and fires every timer due by then, in
  /// deadline order; fired timers queue their inputs. Dispatches nothing.
  ///
  /// A periodic timer that fell more than a period behind fires once and skips the missed
  /// ticks, keeping its phase.
  public func advance(to instant: Instant) {
    if instant > _currentTime { _currentTime = instant }
    let now = _currentTime.nanoseconds
    while let deadline = _timers.earliestDeadline, deadline <= now {
      let handle = _timers.earliest
      let entry = _timers.entries[Int(handle)]
      if entry.period > 0 {
        var next = deadline &+ entry.period
        if next <= now { next = now &+ entry.period &- (now &- deadline) % entry.period }
        _timers.reschedule(handle, deadline: next)
      } else {
        _timers.disarm(handle)
        _counters.timers -= 1
      }
      guard _registry.liveRecord(entry.owner) != nil else { continue }
      perform(
        .fire(slot: entry.slot, generation: entry.slotGeneration, disarmed: entry.period == 0),
        on: entry.owner.index)
    }
  }

  /// Resolves queued inputs, one per machine step, until none are left or `limit` steps were
  /// taken; returns the number of steps. Re-entrant calls (from an observer) return 0.
  ///
  /// A machine taken off the ready list is marked running and handed to its variant, which
  /// takes its steps, counting them down in `registry.stepsLeft`, and puts it back on the list
  /// if it yields with inputs left; a machine removed meanwhile is freed here, once its variant
  /// has returned. `_counters.dispatched` counts the steps when it returns (`statistics` adds
  /// those of a dispatch in progress).
  @discardableResult
  @inlinable
  public func dispatch(limit: Int = .max) -> Int {
    _registry.assertOnItsThread()
    guard !_isDispatching, limit > 0 else { return 0 }
    _isDispatching = true
    _dispatchLimit = limit
    let registry = self._registry
    registry.stepsLeft = limit
    while true {
      guard registry.stepsLeft > 0 else {
        // The limit ran out with the `release` slot perhaps still queued: its observers are
        // released now all the same.
        if _slowPath(!_retiredObservers.isEmpty) { _releaseRetiredObservers() }
        break
      }
      guard let (index, record) = registry.takeReady() else { break }
      if record.pointee.isAlive {
        let entry = registry.variants + Int(record.pointee.variant)
        entry.pointee.variant._withUnsafeGuaranteedRef {
          $0.dispatch(registry, index, record, entry)
        }
        if record.pointee.isAlive { continue }
      }
      _releaseIndex(index)
    }
    let steps = limit &- registry.stepsLeft
    _counters.dispatched &+= UInt64(truncatingIfNeeded: steps)
    _isDispatching = false
    return steps
  }

  /// Keeps a removed observer's box until it is safe to release: during a dispatch, until
  /// no observer is being called (the box may be the one), which the dispatch reaches through
  /// the registry's `release` slot before it returns; outside a dispatch, until the call that
  /// removed it is done with the runtime (`releaseRetiredObservers`), since the box may hold
  /// the last reference to the runtime.
  /// `compacting` names the machine whose observer list has a placeholder in the box's place
  /// (`_ObserverList.remove(token:inPlace:)`), taken out before the box is released.
  @usableFromInline
  func _retire(_ observer: Unmanaged<_AnyObserverBox>, compacting machine: MachineID? = nil) {
    _retiredObservers.append((observer, machine))
    // During a dispatch, the ready list brings it to them before it returns.
    if _isDispatching { _registry.scheduleRelease() }
  }

  /// Takes the placeholders out of the observer lists of the machines that had observers
  /// removed during the last dispatch, then releases the removed observers' boxes. The last
  /// reference to the runtime may go with one (an observer that captured it): the list is
  /// emptied first, and nothing of the runtime is touched after the releases.
  @usableFromInline
  func _releaseRetiredObservers() {
    let retired = _retiredObservers
    _retiredObservers = []
    for (_, machine) in retired {
      guard let machine, _registry.liveRecord(machine) != nil else { continue }
      perform(.compactObservers, on: machine.index)
    }
    for (box, _) in retired { box.release() }
  }

  /// Hands a finished job back; its results are queued to its machine unless the effect was
  /// cancelled or the machine removed meanwhile. Call on the runtime's thread.
  public func complete(_ job: PendingJob) {
    guard _registry.liveRecord(job._machine) != nil else { return }
    perform(.complete(job), on: job._machine.index)
  }

  /// Makes `executor` run every job a `run` effect starts from now on: how a driver
  /// (`ManualDriver`, MillraceUV's `RuntimeLoop`) takes the runtime's jobs.
  ///
  /// - Precondition: no executor is installed. A runtime has one driver: a second one would
  ///   take the first one's jobs, which would then never complete where it waits for them.
  public func installJobExecutor(_ executor: @escaping (PendingJob) -> Void) {
    precondition(
      jobExecutor == nil,
      "the runtime already has a job executor: one driver per runtime (remove the other's first)")
    jobExecutor = executor
  }

  /// Removes the installed executor: jobs then execute inline, as they start.
  public func removeJobExecutor() {
    jobExecutor = nil
  }

  // MARK: Services for machines

  @usableFromInline
  func _report(_ diagnostic: Diagnostic) {
    _counters.diagnostics &+= 1
    onDiagnostic?(diagnostic)
  }

  @inlinable
  func _armTimer(
    deadline: UInt64, period: UInt64, owner: MachineID, slot: UInt32, slotGeneration: UInt32
  ) -> UInt32? {
    guard
      let handle = _timers.arm(
        deadline: deadline, period: period, owner: owner, slot: slot,
        slotGeneration: slotGeneration)
    else { return nil }
    _counters.timers += 1
    if _counters.timers > _counters.timersHighWater { _counters.timersHighWater = _counters.timers }
    return handle
  }

  @inlinable
  func _disarmTimer(_ handle: UInt32) {
    _timers.disarm(handle)
    _counters.timers -= 1
  }

  @usableFromInline
  func _submit(_ job: PendingJob) {
    if let jobExecutor {
      jobExecutor(job)
    } else {
      job.execute()
      complete(job)
    }
  }
}
