/// Hosts machines and dispatches their inputs, run-to-completion, on one thread.
///
/// Guarantees:
/// - Single-threaded: every method must be called on the thread that drives the runtime.
/// - Run-to-completion: one input is resolved, replied to and its effects applied before the
///   next input of any machine is resolved.
/// - FIFO and fair: one machine's inputs in arrival order; machines with queued inputs take
///   turns, one input per turn.
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
  var currentTime = Instant.zero
  @usableFromInline
  @exclusivity(unchecked)
  var counters = RuntimeStatistics()
  /// The machine records, with the free and ready lists.
  @usableFromInline
  let table: _MachineTable
  /// The machine kinds in use: one per machine type and queue layout, kept for the runtime's
  /// life. Records name them by index into the table's `kinds`, which
  /// mirrors this array unretained so that dispatch reaches a kind without retaining it.
  /// Spawns read it and no access to it calls out of the runtime, so it skips exclusivity
  /// checks, as `blockArena` does (a spawn paid more for the checks than for the rest).
  @usableFromInline
  @exclusivity(unchecked)
  var kinds: [_MachineKind] = []
  /// The bytes reserved for machine blocks (`capacity.blockBytes`), if any.
  @usableFromInline
  @exclusivity(unchecked)
  var blockArena: _BlockArena
  /// The input and effect pools, one per cell shape, made when a kind first needs one; kinds
  /// point into them.
  @usableFromInline
  var pools: [(shape: _CellShape, inputs: Bool, pool: UnsafeMutablePointer<_CellPool>)] = []
  /// The observers of whole machine types (`observeAll`), one per type at most: the type
  /// (`_MachineKind.type`) and the box its kinds point to, retained.
  @usableFromInline
  var observedTypes: [(type: UInt, box: Unmanaged<_AnyObserverBox>)] = []
  @usableFromInline
  @exclusivity(unchecked)
  var timers: _TimerHeap
  @usableFromInline
  @exclusivity(unchecked)
  var scratch: UnsafeMutableRawPointer
  @usableFromInline
  @exclusivity(unchecked)
  var scratchBytes: Int
  /// Effect buffers that `reserveScratch` replaced during a dispatch, when a resolution in
  /// progress may still be reading one (a spawn by an observer): freed by the next
  /// replacement outside a dispatch, or with the runtime.
  @usableFromInline
  var retiredScratch: [UnsafeMutableRawPointer] = []
  /// The index of the last effect a resolution may record (`capacity.effectsPerResolution`
  /// less one): what `Effects` compares with, ready-made for every resolution.
  @usableFromInline
  let lastEffectIndex: UInt
  /// Observers removed and not yet released (`retire`), each with the machine whose list
  /// holds a placeholder in its place (removed during a dispatch), if any.
  @usableFromInline
  @exclusivity(unchecked)
  var retiredObservers: [(box: Unmanaged<_AnyObserverBox>, machine: MachineID?)] = []
  @usableFromInline
  @exclusivity(unchecked)
  var isDispatching = false
  /// The turn limit of the running `dispatch` (its turns taken so far are this minus
  /// `table.turnsLeft`).
  @usableFromInline
  @exclusivity(unchecked)
  var dispatchLimit = 0

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
    capacity.inputsPerMachine = RuntimeCapacity.clamp(
      capacity.inputsPerMachine, to: RuntimeCapacity.maxInputs)
    capacity.effectsPerMachine = RuntimeCapacity.clamp(
      capacity.effectsPerMachine, to: RuntimeCapacity.maxEffects)
    // Room for the effects of integer machines (those of the C API); a kind whose effects are
    // larger grows it when first spawned (`reserveScratch`).
    let scratchBytes =
      MemoryLayout<Effect<Int32, Int32>>.stride * capacity.effectsPerResolution
    guard let table = _MachineTable(capacity: capacity.machines) else { return nil }
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
      capacity: capacity, table: table, timers: timers, blockArena: blockArena,
      scratch: scratch, scratchBytes: scratchBytes)
  }

  private init(
    capacity: RuntimeCapacity, table: _MachineTable, timers: _TimerHeap, blockArena: _BlockArena,
    scratch: UnsafeMutableRawPointer, scratchBytes: Int
  ) {
    self.capacity = capacity
    self.table = table
    self.blockArena = blockArena
    self.timers = timers
    self.scratchBytes = scratchBytes
    self.scratch = scratch
    lastEffectIndex = UInt(capacity.effectsPerResolution - 1)
    table.owner = Unmanaged.passUnretained(self)
  }

  deinit {
    for index in 0..<table.initialized where table.records[Int(index)].block != nil {
      perform(.terminate, on: index)
      perform(.destroy, on: index)
    }
    table.owner = nil
    for (_, _, pool) in pools {
      pool.pointee.deallocate()
      pool.deallocate()
    }
    for observed in observedTypes { observed.box.release() }
    blockArena.deallocate()
    timers.deallocate()
    scratch.deallocate()
    for retired in retiredScratch { retired.deallocate() }
    releaseRetiredObservers()
  }

  /// The latest instant passed to `advance(to:)`.
  public var now: Instant { currentTime }

  /// A snapshot of the runtime's counters and high-water marks.
  public var statistics: RuntimeStatistics {
    var statistics = counters
    // Turns of the running dispatch are added to the counters when it returns.
    if isDispatching {
      statistics.dispatched &+= UInt64(truncatingIfNeeded: dispatchLimit &- table.turnsLeft)
    }
    return statistics
  }

  // MARK: Machines

  /// Spawns a machine of type `M` in `state`, with its dependencies `extra`.
  ///
  /// Takes the machine's block (its state, extra and bounded queues' lists) from the bytes
  /// reserved by `capacity.blockBytes` when set (never allocating), else from its kind's
  /// chunks. The machine may queue `inputCapacity` inputs (default
  /// `capacity.inputsPerMachine`, at most `RuntimeCapacity.maxInputs`), drawn from the
  /// runtime's input pool as they come. `queues` overrides `M.Queue.policies` (for machines
  /// whose `Queue` is `EffectQueue`, the layout is given so). Throws `SpawnError`,
  /// saying why, and counts it, when it cannot: every machine slot is taken, the reserved
  /// block bytes are used up, the runtime already has `RuntimeCapacity.maxKinds` kinds and
  /// this would be a new one, or (Embedded Swift) the memory for a new kind, its pools or a
  /// chunk of blocks cannot be allocated.
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, extra: M.Extra, queues: [QueuePolicy]? = nil,
    inputCapacity: Int? = nil
  ) throws(SpawnError) -> MachineHandle<M> {
    guard table.hasFreeSlot else { throw refuseSpawn(.machineSlotsFull) }
    let (kind, index) = try reserveSpawn(
      kind: kind(of: type, queues: queues),
      effectBytes: MemoryLayout<Effect<M.Input, M.Output>>.stride * capacity.effectsPerResolution,
      effectAlignment: MemoryLayout<Effect<M.Input, M.Output>>.alignment)
    _TypedMachine<M>.spawn(
      runtime: self, index: index, kind: kind, state: state, extra: extra,
      inputCapacity: RuntimeCapacity.clamp(
        inputCapacity ?? capacity.inputsPerMachine, to: RuntimeCapacity.maxInputs))
    counters.machines += 1
    if counters.machines > counters.machinesHighWater {
      counters.machinesHighWater = counters.machines
    }
    return MachineHandle(
      table: table, id: MachineID(index: index, generation: table.records[Int(index)].generation))
  }

  /// Spawns a machine that needs no dependencies.
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, queues: [QueuePolicy]? = nil, inputCapacity: Int? = nil
  ) throws(SpawnError) -> MachineHandle<M> where M.Extra == Void {
    try spawn(type, state: state, extra: (), queues: queues, inputCapacity: inputCapacity)
  }

  /// Reserves what a machine of `kind` (nil: no kind could be had) needs before it is made,
  /// once a free slot is known to exist: a block, room in the effect scratch for
  /// `effectBytes`, then the slot. Returns the kind and the slot taken; throws, counting the
  /// refusal, when one is missing (no slot is taken then: it is taken last; what was reserved
  /// before the failure stays for the next spawn).
  @usableFromInline
  func reserveSpawn(
    kind: UInt16?, effectBytes: Int, effectAlignment: Int
  ) throws(SpawnError) -> (kind: UInt16, index: UInt32) {
    guard let kind else {
      throw refuseSpawn(kinds.count >= RuntimeCapacity.maxKinds ? .kindsFull : .outOfMemory)
    }
    guard
      table.kinds[Int(kind)].kind._withUnsafeGuaranteedRef({
        $0.blocks.reserve(from: &blockArena)
      })
    else { throw refuseSpawn(blockArena.isReserved ? .blockBytesUsedUp : .outOfMemory) }
    guard reserveScratch(bytes: effectBytes, alignment: effectAlignment) else {
      throw refuseSpawn(.outOfMemory)
    }
    return (kind, table.takeFreeSlot().unsafelyUnwrapped)
  }

  /// Counts a refused spawn and returns why, to be thrown (also by the C API, whose own
  /// limits refuse spawns the runtime never sees).
  @usableFromInline
  package func refuseSpawn(_ error: SpawnError) -> SpawnError {
    counters.spawnsRefused &+= 1
    return error
  }

  /// The index of the kind in use for machines of type `M` with `queues` (`M.Queue.policies` when
  /// nil), made now if there is none; nil when a new kind is needed and the kind table is
  /// full. Builds nothing when the kind exists: a spawn costs a scan of the kinds, not a
  /// kind. `M.Queue.policies` is read only until a kind of `M` without queues of its own
  /// exists.
  @inlinable
  func kind<M: Machine>(of type: M.Type, queues: [QueuePolicy]?) -> UInt16? {
    let type = _TypedMachineKind<M>.type
    if queues == nil {
      // Through the table's unretained entries: no reference counting per kind looked at.
      let entries = table.kinds
      for index in 0..<kinds.count
      where entries[index].kind._withUnsafeGuaranteedRef({ $0.type == type && $0.isDefault }) {
        return UInt16(truncatingIfNeeded: index)
      }
    }
    return kind(of: type, queues: queues, policies: queues ?? M.Queue.policies) {
      _TypedMachineKind<M>(policies: $0, effectCapacity: $1)
    }
  }

  /// `kind(of:queues:)` past the kinds marked default: the kind of `type` with `policies`,
  /// or one `make` builds (from the policies and the effect capacity), now in use.
  @usableFromInline
  func kind(
    of type: UInt, queues: [QueuePolicy]?, policies: [QueuePolicy],
    make: ([QueuePolicy], Int) -> _MachineKind
  ) -> UInt16? {
    let effectCapacity = capacity.effectsPerMachine
    let found = kinds.firstIndex {
      $0.matches(type: type, policies: policies, effectCapacity: effectCapacity)
    }
    if let found {
      if queues == nil { kinds[found].isDefault = true }
      return UInt16(truncatingIfNeeded: found)
    }
    guard kinds.count < RuntimeCapacity.maxKinds else { return nil }
    // The kind and the arrays' room first, the checked allocations (`_Memory`) after them: a
    // full allocator then refuses a checked one, never one of these (a stop on Embedded Swift).
    let kind = make(policies, effectCapacity)
    kinds.reserveCapacity(kinds.count + 1)
    pools.reserveCapacity(pools.count + 2)
    guard table.reserveKind(at: kinds.count), let inputPool = pool(kind.inputShape, inputs: true),
      let effectPool = pool(kind.effectShape, inputs: false)
    else { return nil }
    kind.isDefault = queues == nil
    kind.inputPool = inputPool
    kind.effectPool = effectPool
    kind.observer = observedTypes.first { $0.type == type }?.box.toOpaque()
    kinds.append(kind)
    rebuildKindEntries()
    return UInt16(kinds.count - 1)
  }

  /// Rewrites the table's kind entries from `kinds`.
  @usableFromInline
  func rebuildKindEntries() {
    for (index, kind) in kinds.enumerated() { table.setKind(_KindEntry(kind), at: index) }
  }

  /// The pool of cells of `shape` (input or effect cells), made now if there is none; nil
  /// when its memory cannot be allocated.
  @usableFromInline
  func pool(_ shape: _CellShape, inputs: Bool) -> UnsafeMutablePointer<_CellPool>? {
    if let found = pools.first(where: { $0.shape == shape && $0.inputs == inputs }) {
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
    pools.append((shape, inputs, pool))
    return pool
  }

  /// Gives back to the system the memory of tables and pools that hold nothing now (the
  /// machine table once every machine is removed, a pool once its cells are all free, the
  /// timer table once no timer is armed), when more than `threshold` bytes of it were used;
  /// they are reserved afresh, untouched. Returns the bytes given back. Allocates: call it
  /// off the hot path, e.g. when a driver is idle or after removing many machines.
  @discardableResult
  public func releaseMemory(above threshold: Int = 64 << 10) -> Int {
    var released = 0
    for (_, _, pool) in pools {
      let bytes = pool.pointee.touchedBytes
      if pool.pointee.releaseMemory(above: threshold) { released += bytes }
    }
    let timerBytes = timers.touchedBytes
    if timers.releaseMemory(above: threshold) { released += timerBytes }
    if !isDispatching {
      let tableBytes = table.touchedBytes
      if table.releaseMemory(above: threshold) { released += tableBytes }
    }
    return released
  }

  /// Removes a machine: cancels all its in-flight effects and timers, drops its queued inputs;
  /// its observers see nothing more and posts to it answer `.noMachine`.
  public func remove<M: Machine>(_ handle: MachineHandle<M>) {
    guard handle.table === table, table.liveRecord(handle.id) != nil else { return }
    terminate(handle.id.index)
  }

  /// Removes the live machine in slot `index`. Its block and slot are freed now, or, while
  /// it is in the ready list or being dispatched, by `dispatch` when it takes the slot off.
  @usableFromInline
  func terminate(_ index: UInt32) {
    perform(.terminate, on: index)
    counters.machines -= 1
    if !table.records[Int(index)].isScheduled { releaseIndex(index) }
  }

  /// Frees a dead machine's block and slot (neither in the ready list nor being dispatched).
  @usableFromInline
  func releaseIndex(_ index: UInt32) {
    perform(.destroy, on: index)
    table.freeSlot(index)
  }

  /// Runs `operation` on the machine in slot `index` through its kind.
  @inlinable
  @discardableResult
  func perform(_ operation: _CellOperation, on index: UInt32) -> Bool {
    let table = self.table
    return table.kinds[Int(table.records[Int(index)].kind)].kind._withUnsafeGuaranteedRef {
      $0.perform(table, index, operation)
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
    let box = _ObserverBox<_TypedMachine<M>.KindEvent>(token: table.newObserverToken()) {
      observer($0.0, $0.1)
    }
    let observation = Observation(table: table, type: _TypedMachineKind<M>.type, token: box.token)
    setObserver(of: observation._type, to: Unmanaged.passRetained(box))
    if !isDispatching { releaseRetiredObservers() }
    return observation
  }

  /// Makes `box` (retained) the observer of every machine of `type`, now and later (nil:
  /// none). The one it replaces is retired (`retire`).
  @usableFromInline
  func setObserver(of type: UInt, to box: Unmanaged<_AnyObserverBox>?) {
    for kind in kinds where kind.type == type { kind.observer = box?.toOpaque() }
    rebuildKindEntries()
    for observed in observedTypes where observed.type == type { retire(observed.box) }
    observedTypes.removeAll { $0.type == type }
    if let box { observedTypes.append((type, box)) }
  }

  /// Removes the observer of every machine of `type` if it is registration `token`'s; false
  /// when it is not (cancelled, or replaced by a later `observeAll`).
  @usableFromInline
  func removeObserver(of type: UInt, token: UInt64) -> Bool {
    guard
      let current = observedTypes.first(where: { $0.type == type }),
      current.box._withUnsafeGuaranteedRef({ $0.token == token })
    else { return false }
    setObserver(of: type, to: nil)
    return true
  }

  /// A handle to the live machine `id` names, when the caller knows it is of type `M` (the
  /// C API, whose machines all are); nil when no live machine has that id.
  @usableFromInline
  package func handle<M: Machine>(to id: MachineID, of type: M.Type) -> MachineHandle<M>? {
    guard table.liveRecord(id) != nil else { return nil }
    return MachineHandle(table: table, id: id)
  }

  /// Makes the effect buffer hold `bytes` aligned to `alignment`; false when it must grow
  /// and the memory cannot be allocated. During a dispatch the buffer it replaces stays
  /// allocated (`retiredScratch`): the resolution under way records into it.
  @usableFromInline
  func reserveScratch(bytes: Int, alignment: Int) -> Bool {
    guard bytes > scratchBytes || alignment > 16 else { return true }
    let grown = bytes > scratchBytes ? bytes : scratchBytes
    guard let fresh = _Memory.allocate(bytes: grown, alignment: alignment > 16 ? alignment : 16)
    else { return false }
    if isDispatching {
      retiredScratch.append(scratch)
    } else {
      scratch.deallocate()
      for retired in retiredScratch { retired.deallocate() }
      retiredScratch.removeAll()
    }
    scratch = fresh
    scratchBytes = grown
    return true
  }

  // MARK: Driving

  /// Whether any machine has queued inputs.
  public var hasPendingInputs: Bool { table.hasReady }

  /// The earliest armed timer's deadline, or nil when no timer is armed.
  public var nextDeadline: Instant? {
    timers.earliestDeadline.map { Instant(nanoseconds: $0) }
  }

  /// Moves time forward to `instant` (never backward) and fires every timer due by then, in
  /// deadline order; fired timers queue their inputs. Dispatches nothing.
  ///
  /// A periodic timer that fell more than a period behind fires once and skips the missed
  /// ticks, keeping its phase.
  public func advance(to instant: Instant) {
    if instant > currentTime { currentTime = instant }
    let now = currentTime.nanoseconds
    while let deadline = timers.earliestDeadline, deadline <= now {
      let handle = timers.earliest
      let entry = timers.entries[Int(handle)]
      if entry.period > 0 {
        var next = deadline &+ entry.period
        if next <= now { next = now &+ entry.period &- (now &- deadline) % entry.period }
        timers.reschedule(handle, deadline: next)
      } else {
        timers.disarm(handle)
        counters.timers -= 1
      }
      guard table.liveRecord(entry.owner) != nil else { continue }
      perform(
        .fire(slot: entry.slot, generation: entry.slotGeneration, disarmed: entry.period == 0),
        on: entry.owner.index)
    }
  }

  /// Resolves queued inputs, one per machine turn, until none are left or `limit` turns were
  /// taken; returns the number of turns. Re-entrant calls (from an observer) return 0.
  ///
  /// A machine taken off the ready list is marked running and handed to its kind, which
  /// takes its turns, counting them down in `table.turnsLeft`, and puts it back on the list
  /// if it yields with inputs left; a machine removed meanwhile is freed here, once its kind
  /// has returned. `counters.dispatched` counts the turns when it returns (`statistics` adds
  /// those of a dispatch in progress).
  @discardableResult
  @inlinable
  public func dispatch(limit: Int = .max) -> Int {
    guard !isDispatching, limit > 0 else { return 0 }
    isDispatching = true
    dispatchLimit = limit
    let table = self.table
    table.turnsLeft = limit
    while table.turnsLeft > 0, let (index, record) = table.takeReady() {
      if record.pointee.isAlive {
        let entry = table.kinds + Int(record.pointee.kind)
        entry.pointee.kind._withUnsafeGuaranteedRef {
          $0.dispatch(table, index, record, entry)
        }
        if record.pointee.isAlive { continue }
      }
      releaseIndex(index)
    }
    let turns = limit &- table.turnsLeft
    counters.dispatched &+= UInt64(truncatingIfNeeded: turns)
    isDispatching = false
    if !retiredObservers.isEmpty { releaseRetiredObservers() }
    return turns
  }

  /// Keeps a removed observer's box until it is safe to release: until the running dispatch
  /// returns (the box may be the observer being called), or, outside a dispatch, until the
  /// call that removed it is done with the runtime (`releaseRetiredObservers`), since the
  /// box may hold the last reference to the runtime.
  /// `compacting` names the machine whose observer list has a placeholder in the box's place
  /// (`_ObserverList.remove(token:inPlace:)`), taken out before the box is released.
  @usableFromInline
  func retire(_ observer: Unmanaged<_AnyObserverBox>, compacting machine: MachineID? = nil) {
    retiredObservers.append((observer, machine))
  }

  /// Takes the placeholders out of the observer lists of the machines that had observers
  /// removed during the last dispatch, then releases the removed observers' boxes. The last
  /// reference to the runtime may go with one (an observer that captured it): the list is
  /// emptied first, and nothing of the runtime is touched after the releases.
  @usableFromInline
  func releaseRetiredObservers() {
    let retired = retiredObservers
    retiredObservers = []
    for (_, machine) in retired {
      guard let machine, table.liveRecord(machine) != nil else { continue }
      perform(.compactObservers, on: machine.index)
    }
    for (box, _) in retired { box.release() }
  }

  /// Hands a finished job back; its results are queued to its machine unless the effect was
  /// cancelled or the machine removed meanwhile. Call on the runtime's thread.
  public func complete(_ job: PendingJob) {
    guard table.liveRecord(job.machine) != nil else { return }
    perform(.complete(job), on: job.machine.index)
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
  func report(_ diagnostic: Diagnostic) {
    counters.diagnostics &+= 1
    onDiagnostic?(diagnostic)
  }

  @inlinable
  func armTimer(
    deadline: UInt64, period: UInt64, owner: MachineID, slot: UInt32, slotGeneration: UInt32
  ) -> UInt32? {
    guard
      let handle = timers.arm(
        deadline: deadline, period: period, owner: owner, slot: slot,
        slotGeneration: slotGeneration)
    else { return nil }
    counters.timers += 1
    if counters.timers > counters.timersHighWater { counters.timersHighWater = counters.timers }
    return handle
  }

  @inlinable
  func disarmTimer(_ handle: UInt32) {
    timers.disarm(handle)
    counters.timers -= 1
  }

  @usableFromInline
  func submit(_ job: PendingJob) {
    if let jobExecutor {
      jobExecutor(job)
    } else {
      job.execute()
      complete(job)
    }
  }
}
