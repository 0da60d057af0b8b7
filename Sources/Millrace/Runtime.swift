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
/// - The runtime reads no clock of its own: the driver passes time in with `advance(to:)`, and
///   through `presentTime` when a timer starts, and asks for `nextDeadline` (see `ManualDriver`
///   for tests and bare-metal loops).
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
  public internal(set) var jobExecutor: ((PendingJob) -> Void)?

  /// The present, read when an `after` or `every` starts, so that its deadline counts from
  /// that moment even when the driver has not advanced time since it woke: an event loop's
  /// first input after a sleep starts its timers before the loop's turn advances the clock.
  /// Nil (the default, and `ManualDriver`'s): timers count from the last `advance(to:)`. The
  /// runtime's time never moves back; what falls due by it fires at the next `advance(to:)`.
  @exclusivity(unchecked)
  public var presentTime: (() -> Instant)? {
    didSet { _hasPresentTime = presentTime != nil }
  }

  /// Whether `presentTime` is set: tested where a timer starts, so that a runtime without one
  /// does not copy the optional closure (a retain and a release) to find it nil.
  @usableFromInline
  @exclusivity(unchecked)
  var _hasPresentTime = false

  @usableFromInline
  @exclusivity(unchecked)
  var _currentTime = Instant.zero
  /// The counters `statistics` reports, but `dispatched`, which the registry keeps
  /// (`_MachineRegistry.dispatched`).
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
  /// Whether a `dispatch` is running.
  @inlinable
  var _isDispatching: Bool { _registry.isDispatching }

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
    // Room for the effects of integer machines; a variant whose effects are larger grows it
    // when first spawned (`reserveScratch`).
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

  /// Whether a `dispatch(limit:)` is running: an observer or `onDiagnostic` called now is
  /// called from inside a step (an overflow reported then comes from the step's own effects,
  /// which apply after its observers saw its reply), not from `advance(to:)`, `complete(_:)`
  /// or a post.
  public var isDispatching: Bool { _isDispatching }

  /// A snapshot of the runtime's counters and high-water marks.
  public var statistics: RuntimeStatistics {
    var statistics = _counters
    // The running dispatch counted its whole limit when it started: the steps it has left
    // are not taken yet.
    statistics.dispatched = _registry.dispatched
    if _isDispatching {
      statistics.dispatched &-= UInt64(truncatingIfNeeded: _registry.stepsLeft)
    }
    return statistics
  }

  /// Gives back to the system the memory of tables and pools that hold nothing now (the
  /// machine registry once every machine is removed, a pool once its cells are all free, the
  /// timer table once no timer is armed), when more than `threshold` bytes of it were used;
  /// they are reserved afresh, untouched. Returns the bytes given back. Allocates: call it
  /// off the hot path, e.g. when a driver is idle or after removing many machines.
  @discardableResult
  public func releaseMemory(above threshold: Int = 64 << 10) -> Int {
    releaseMemory(above: threshold) { $0.deallocate() }
  }

  /// `releaseMemory(above:)`, except that the memory given back is not deallocated here: each
  /// block is handed to `release`, which must deallocate it (`deallocate()`), on any thread,
  /// once, and nothing else may touch it. For a caller whose thread must not wait for the
  /// system: freeing the records of a million machines takes milliseconds, which another
  /// thread can spend instead.
  @discardableResult
  public func releaseMemory(
    above threshold: Int = 64 << 10, handingOff release: (UnsafeMutableRawPointer) -> Void
  ) -> Int {
    var released = 0
    for (_, _, pool) in _pools {
      let bytes = pool.pointee.touchedBytes
      if pool.pointee.releaseMemory(above: threshold, handingOff: release) { released += bytes }
    }
    let timerBytes = _timers.touchedBytes
    if _timers.releaseMemory(above: threshold, handingOff: release) { released += timerBytes }
    if !_isDispatching {
      let tableBytes = _registry.touchedBytes
      if _registry.releaseMemory(above: threshold, handingOff: release) {
        released += tableBytes
      }
    }
    return released
  }

  /// Counts `diagnostic` and hands it to `onDiagnostic`.
  @usableFromInline
  func _report(_ diagnostic: Diagnostic) {
    _counters.diagnostics &+= 1
    onDiagnostic?(diagnostic)
  }
}
