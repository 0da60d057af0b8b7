/// The buffer a runtime lends a resolver to record effects into, without allocating.
///
/// Effects are applied in the order recorded, after the reply, and only if the input was
/// handled: a rejected input's effects are discarded. The buffer holds
/// `RuntimeCapacity.effectsPerResolution` effects; further ones are dropped, counted in the
/// machine's statistics and reported to the runtime's diagnostics observer.
public struct Effects<Input, Output> {
  @usableFromInline
  let storage: UnsafeMutablePointer<Effect<Input, Output>>
  /// The index of the buffer's last slot (it holds at least one): unsigned, so that the
  /// compiler knows a resolution's first effect fits without looking.
  @usableFromInline
  let lastIndex: UInt
  @usableFromInline
  var recorded: Int = 0
  @usableFromInline
  var dropped: Int = 0

  /// How many effects were recorded so far.
  @inlinable
  public var count: Int { recorded }
  /// How many effects were dropped because the buffer was full.
  @inlinable
  public var overflow: Int { dropped }

  /// A buffer of `lastIndex + 1` effects at `storage`.
  @usableFromInline
  init(storage: UnsafeMutablePointer<Effect<Input, Output>>, lastIndex: UInt) {
    self.storage = storage
    self.lastIndex = lastIndex
  }

  /// Records `effect`; returns false (and counts it) when the buffer is full.
  @inlinable
  @discardableResult
  public mutating func record(_ effect: Effect<Input, Output>) -> Bool {
    guard UInt(truncatingIfNeeded: recorded) <= lastIndex else {
      dropped &+= 1
      return false
    }
    (storage + recorded).initialize(to: effect)
    recorded &+= 1
    return true
  }

  /// Feeds `input` back to this machine after the current input.
  @inlinable
  public mutating func send(_ input: Input) {
    record(.send(input))
  }

  /// Delivers `output` to observers and wired machines.
  @inlinable
  public mutating func emit(_ output: Output) {
    record(.emit(output))
  }

  /// Sends `input` once, `span` after the effect starts on `queue`.
  @inlinable
  public mutating func after(
    _ span: TimeSpan, send input: Input, on queue: EffectQueue = .default, id: EffectID = .none
  ) {
    record(.after(span, input, queue: queue, id: id))
  }

  /// Sends `input` every `span` after the effect starts on `queue`, until cancelled.
  @inlinable
  public mutating func every(
    _ span: TimeSpan, send input: Input, on queue: EffectQueue = .default, id: EffectID = .none
  ) {
    record(.every(span, input, queue: queue, id: id))
  }

  /// Runs `job` off the loop thread on `queue`; its results come back as inputs.
  @inlinable
  public mutating func run(
    _ job: Job<Input>, on queue: EffectQueue = .default, id: EffectID = .none
  ) {
    record(.run(job, queue: queue, id: id))
  }

  /// Cancels every in-flight effect of this machine with `id`.
  @inlinable
  public mutating func cancel(_ id: EffectID) {
    record(.cancel(id))
  }

  /// Destroys the recorded effects without applying them.
  @inlinable
  mutating func discardAll() {
    storage.deinitialize(count: recorded)
    recorded = 0
  }
}
