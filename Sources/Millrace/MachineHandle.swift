/// The outside's typed view of a spawned machine: it can post inputs, read the state, and
/// observe replies and outputs, and nothing else. Only the machine's resolver changes state.
///
/// A handle stays valid after its machine is removed, and after its runtime is gone (posts
/// answer `.noMachine`, `state` is nil). It keeps the runtime's machine registry alive, not the
/// runtime. Use it on the runtime's thread only.
public struct MachineHandle<M: Machine> {
  @usableFromInline
  let _registry: _MachineRegistry
  /// The machine's id in its runtime.
  public let id: MachineID

  @inlinable
  init(registry: _MachineRegistry, id: MachineID) {
    self._registry = registry
    self.id = id
  }

  /// The machine, while it is alive.
  @inlinable
  var _machine: _TypedMachine<M>? {
    guard _registry.liveRecord(id) != nil else { return nil }
    return _TypedMachine(registry: _registry, index: id.index)
  }

  /// Whether the machine is still spawned.
  public var isAlive: Bool { _registry.liveRecord(id) != nil }

  /// Queues `input`; its reply reaches observers with `tag`. Never allocates.
  @inlinable
  public func post(_ input: M.Input, tag: PostTag = .none) -> PostResult {
    _registry.assertOnItsThread()
    guard let _machine else { return .noMachine }
    return _machine.post(input, tag: tag)
  }

  /// The current state, or nil once the machine was removed.
  public var state: M.State? { _machine?.state.pointee }

  /// Effects of the machine in flight (started or waiting on a queue, not yet finished or
  /// cancelled); 0 once it was removed. When 0, `timers` is empty.
  public var effectsInFlight: Int {
    _registry.liveRecord(id).map { Int($0.pointee.effectsInFlight) } ?? 0
  }

  /// Inputs waiting in the machine's queue (posted, sent by its own effects, or delivered by
  /// its timers and jobs); 0 once it was removed.
  public var queuedInputs: Int {
    _registry.liveRecord(id).map { Int($0.pointee.inputCount) } ?? 0
  }

  /// The machine's counters and high-water marks; all zero once it was removed.
  public var statistics: MachineStatistics { _machine?.statistics ?? MachineStatistics() }

  /// Registers `observer` for every later reply and output, until the returned observation
  /// is cancelled or the machine removed. Observers are called in the order they were added.
  ///
  /// The machine keeps the observer: one that captures the runtime (or anything that owns
  /// it) strongly keeps the runtime alive through the machine until `Observation.cancel()`
  /// or the machine's removal. Handles may be captured freely: they hold the machine registry,
  /// not the runtime.
  ///
  /// Returns nil, registering nothing, when the machine was removed or (Embedded Swift) the
  /// memory for the registration cannot be allocated.
  @discardableResult
  public func observe(
    _ observer: @escaping (MachineEvent<M.Input, M.State, M.Output>) -> Void
  ) -> Observation? {
    _registry.assertOnItsThread()
    // The box before the checked allocations (`_Memory`): a full allocator refuses one of
    // those, never the box.
    let box = _ObserverBox(token: _registry.newObserverToken(), observer)
    guard _machine?.makeSide()?.pointee.observers.append(box) == true else { return nil }
    return Observation(registry: _registry, machine: id, token: box.token)
  }

  /// An input port that posts to this machine.
  public var port: InputPort<M.Input> {
    let handle = self
    return InputPort { input, tag in handle.post(input, tag: tag) }
  }
}
