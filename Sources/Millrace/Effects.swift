/// The buffer a runtime lends a resolver to record effects into, without allocating.
///
/// Effects are applied in the order recorded, after the reply, and only if the input was
/// handled: a rejected input's effects are discarded. The buffer holds
/// `RuntimeCapacity.effectsPerResolution` effects; further ones are dropped, counted in the
/// machine's statistics and reported to the runtime's diagnostics observer.
public struct Effects<M: Machine> {
  /// What the buffer holds: effects on `M`'s inputs and outputs.
  public typealias Recorded = Effect<M.Input, M.Output>

  @usableFromInline
  let _storage: UnsafeMutablePointer<Recorded>
  /// The index of the buffer's last slot (it holds at least one): unsigned, so that the
  /// compiler knows a resolution's first effect fits without looking.
  @usableFromInline
  let _lastIndex: UInt
  @usableFromInline
  var _recorded: Int = 0
  @usableFromInline
  var _dropped: Int = 0

  /// How many effects were recorded so far.
  @inlinable
  public var count: Int { _recorded }
  /// How many effects were dropped because the buffer was full.
  @inlinable
  public var overflow: Int { _dropped }

  /// A buffer of `_lastIndex + 1` effects at `_storage`.
  @usableFromInline
  init(storage: UnsafeMutablePointer<Recorded>, lastIndex: UInt) {
    self._storage = storage
    self._lastIndex = lastIndex
  }

  /// Records `effect`; returns false (and counts it) when the buffer is full.
  @inlinable
  @discardableResult
  public mutating func record(_ effect: Recorded) -> Bool {
    guard UInt(truncatingIfNeeded: _recorded) <= _lastIndex else {
      _dropped &+= 1
      return false
    }
    (_storage + _recorded).initialize(to: effect)
    _recorded &+= 1
    return true
  }

  /// Feeds `input` back to this machine after the current input.
  @inlinable
  public mutating func send(_ input: M.Input) {
    record(.send(input))
  }

  /// Delivers `output` to observers and wired machines.
  @inlinable
  public mutating func emit(_ output: M.Output) {
    record(.emit(output))
  }

  /// Sends `input` once, `span` after the effect starts on the default queue.
  @inlinable
  public mutating func after(_ span: TimeSpan, send input: M.Input, id: EffectID = .none) {
    record(.after(span, input, queue: .default, id: id))
  }

  /// Sends `input` once, `span` after the effect starts on `queue`.
  @inlinable
  public mutating func after(
    _ span: TimeSpan, send input: M.Input, on queue: M.Queue, id: EffectID = .none
  ) {
    record(.after(span, input, queue: EffectQueue(rawValue: queue.rawValue), id: id))
  }

  /// Sends `input` every `span` after the effect starts on the default queue, until
  /// cancelled.
  @inlinable
  public mutating func every(_ span: TimeSpan, send input: M.Input, id: EffectID = .none) {
    record(.every(span, input, queue: .default, id: id))
  }

  /// Sends `input` every `span` after the effect starts on `queue`, until cancelled.
  @inlinable
  public mutating func every(
    _ span: TimeSpan, send input: M.Input, on queue: M.Queue, id: EffectID = .none
  ) {
    record(.every(span, input, queue: EffectQueue(rawValue: queue.rawValue), id: id))
  }

  /// Runs `job` off the loop thread on the default queue; its results come back as inputs.
  @inlinable
  public mutating func run(_ job: Job<M.Input>, id: EffectID = .none) {
    record(.run(job, queue: .default, id: id))
  }

  /// Runs `job` off the loop thread on `queue`; its results come back as inputs.
  @inlinable
  public mutating func run(_ job: Job<M.Input>, on queue: M.Queue, id: EffectID = .none) {
    record(.run(job, queue: EffectQueue(rawValue: queue.rawValue), id: id))
  }

  /// Cancels every in-flight effect of this machine with `id`.
  @inlinable
  public mutating func cancel(_ id: EffectID) {
    record(.cancel(id))
  }

  /// Destroys the recorded effects without applying them.
  @inlinable
  mutating func _discardAll() {
    _storage.deinitialize(count: _recorded)
    _recorded = 0
  }
}
