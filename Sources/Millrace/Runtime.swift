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
  public var onDiagnostic: ((Diagnostic) -> Void)?
  /// Called with each job a `run` effect starts, on the runtime's thread. The driver executes
  /// it (on any thread) and hands it back to `complete(_:)` on the runtime's thread. When nil,
  /// jobs execute synchronously, inline, and complete at once.
  public var jobExecutor: ((PendingJob) -> Void)?

  @usableFromInline
  @exclusivity(unchecked)
  var currentTime = Instant.zero
  @usableFromInline
  @exclusivity(unchecked)
  var counters = RuntimeStatistics()
  /// The machines by slot, each retained once by the runtime (released by `releaseIndex`).
  /// Unmanaged so that the dispatch loop borrows a machine instead of retaining it.
  @usableFromInline
  @exclusivity(unchecked)
  var cells: UnsafeMutablePointer<Unmanaged<MachineCell>?>
  /// The slot being dispatched, whose release waits until its dispatch returns.
  @usableFromInline
  @exclusivity(unchecked)
  var dispatchingIndex = -1
  @usableFromInline
  @exclusivity(unchecked)
  var releaseAfterDispatch = false
  @usableFromInline
  @exclusivity(unchecked)
  var generations: [UInt32]
  @usableFromInline
  @exclusivity(unchecked)
  var freeIndices: [UInt32]
  @usableFromInline
  @exclusivity(unchecked)
  var ready: FixedRing<UInt32>
  @usableFromInline
  @exclusivity(unchecked)
  var timers: TimerHeap
  @usableFromInline
  @exclusivity(unchecked)
  var scratch: UnsafeMutableRawPointer
  @usableFromInline
  @exclusivity(unchecked)
  var scratchBytes: Int
  @usableFromInline
  @exclusivity(unchecked)
  var isDispatching = false

  /// Reserves every runtime-wide pool at the given capacities.
  public init(capacity: RuntimeCapacity = RuntimeCapacity()) {
    self.capacity = capacity
    cells = .allocate(capacity: capacity.machines)
    cells.initialize(repeating: nil, count: capacity.machines)
    generations = Array(repeating: 1, count: capacity.machines)
    var free: [UInt32] = []
    free.reserveCapacity(capacity.machines)
    for index in (0..<capacity.machines).reversed() { free.append(UInt32(index)) }
    freeIndices = free
    ready = FixedRing(capacity: capacity.machines)
    timers = TimerHeap(capacity: capacity.timers)
    scratchBytes = 64 * capacity.effectsPerResolution
    scratch = .allocate(byteCount: scratchBytes, alignment: 16)
  }

  deinit {
    for index in 0..<capacity.machines {
      guard let cell = cells[index]?.takeRetainedValue() else { continue }
      cell.perform(cell, .terminate)
    }
    cells.deallocate()
    ready.deallocate()
    timers.deallocate()
    scratch.deallocate()
  }

  /// The latest instant passed to `advance(to:)`.
  public var now: Instant { currentTime }

  /// A snapshot of the runtime's counters and high-water marks.
  public var statistics: RuntimeStatistics { counters }

  // MARK: Machines

  /// Spawns a machine of type `M` in `state`, with its dependencies `extra`.
  ///
  /// Reserves the machine's input ring (`inputCapacity`, default
  /// `capacity.inputsPerMachine`) and effect slots. `queues` overrides `M.queues`.
  /// Returns nil (and counts it) when every machine slot is taken.
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, extra: M.Extra, queues: [QueuePolicy]? = nil,
    inputCapacity: Int? = nil
  ) -> MachineHandle<M>? {
    guard let index = freeIndices.popLast() else {
      counters.spawnsRefused &+= 1
      return nil
    }
    reserveScratch(
      bytes: MemoryLayout<Effect<M.Input, M.Output>>.stride * capacity.effectsPerResolution,
      alignment: MemoryLayout<Effect<M.Input, M.Output>>.alignment)
    let box = MachineBox<M>(
      id: MachineID(index: index, generation: generations[Int(index)]), runtime: self,
      state: state, extra: extra, queues: queues ?? M.queues,
      inputCapacity: inputCapacity ?? capacity.inputsPerMachine,
      effectCapacity: capacity.effectsPerMachine)
    cells[Int(index)] = Unmanaged.passRetained(box)
    counters.machines += 1
    if counters.machines > counters.machinesHighWater {
      counters.machinesHighWater = counters.machines
    }
    return MachineHandle(box: box)
  }

  /// Spawns a machine that needs no dependencies.
  @inlinable
  public func spawn<M: Machine>(
    _ type: M.Type, state: M.State, queues: [QueuePolicy]? = nil, inputCapacity: Int? = nil
  ) -> MachineHandle<M>? where M.Extra == Void {
    spawn(type, state: state, extra: (), queues: queues, inputCapacity: inputCapacity)
  }

  /// Removes a machine: cancels all its in-flight effects and timers, drops its queued inputs;
  /// its observers see nothing more and posts to it answer `.noMachine`.
  public func remove<M: Machine>(_ handle: MachineHandle<M>) {
    terminate(handle.box)
  }

  @usableFromInline
  func terminate(_ cell: MachineCell) {
    guard cell.isAlive, cell.runtime === self else { return }
    cell.perform(cell, .terminate)
    counters.machines -= 1
    if !cell.isScheduled { releaseIndex(of: cell) }
  }

  /// Frees a dead machine's slot; deferred while the slot is still in the ready ring.
  @usableFromInline
  func releaseIndex(of cell: MachineCell) {
    let index = Int(cell.id.index)
    guard let held = cells[index], held.toOpaque() == Unmanaged.passUnretained(cell).toOpaque()
    else { return }
    if index == dispatchingIndex {
      releaseAfterDispatch = true
      return
    }
    cells[index] = nil
    generations[index] &+= 1
    freeIndices.append(cell.id.index)
    held.release()
  }

  /// The machine in slot `index`, if any (retained; not for the hot path).
  @usableFromInline
  func cell(at index: Int) -> MachineCell? {
    guard index >= 0 && index < capacity.machines else { return nil }
    return cells[index]?.takeUnretainedValue()
  }

  @usableFromInline
  func reserveScratch(bytes: Int, alignment: Int) {
    guard bytes > scratchBytes || alignment > 16 else { return }
    scratch.deallocate()
    scratchBytes = bytes > scratchBytes ? bytes : scratchBytes
    scratch = .allocate(byteCount: scratchBytes, alignment: alignment > 16 ? alignment : 16)
  }

  // MARK: Driving

  /// Whether any machine has queued inputs.
  public var hasPendingInputs: Bool { !ready.isEmpty }

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
      guard let cell = cells[Int(entry.owner.index)] else { continue }
      cell._withUnsafeGuaranteedRef { cell in
        guard cell.id == entry.owner, cell.isAlive else { return }
        cell.perform(
          cell,
          .fire(slot: entry.slot, generation: entry.slotGeneration, disarmed: entry.period == 0))
      }
    }
  }

  /// Resolves queued inputs, one per machine turn, until none are left or `limit` turns were
  /// taken; returns the number of turns. Re-entrant calls (from an observer) return 0.
  @discardableResult
  public func dispatch(limit: Int = .max) -> Int {
    guard !isDispatching else { return 0 }
    isDispatching = true
    defer { isDispatching = false }
    var turns = 0
    while turns < limit, let index = ready.popFirst() {
      guard let cell = cells[Int(index)] else { continue }
      cell._withUnsafeGuaranteedRef { cell in
        cell.isScheduled = false
        guard cell.isAlive else {
          releaseIndex(of: cell)
          return
        }
        dispatchingIndex = Int(index)
        cell.perform(cell, .dispatch)
        dispatchingIndex = -1
        turns += 1
        if releaseAfterDispatch {
          releaseAfterDispatch = false
          if !cell.isScheduled { releaseIndex(of: cell) }
        }
      }
    }
    return turns
  }

  /// Hands a finished job back; its results are queued to its machine unless the effect was
  /// cancelled or the machine removed meanwhile. Call on the runtime's thread.
  public func complete(_ job: PendingJob) {
    guard let cell = cell(at: Int(job.machine.index)), cell.id == job.machine, cell.isAlive
    else { return }
    cell.perform(cell, .complete(job))
  }

  // MARK: Services for machines

  @inlinable
  func schedule(_ cell: MachineCell) {
    cell.isScheduled = true
    _ = ready.append(cell.id.index)
  }

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
