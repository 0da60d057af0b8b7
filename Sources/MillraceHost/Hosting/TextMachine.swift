import Millrace

/// A hosted machine of Swift type `M`, read and printed through a `TextCodec`.
final class TextMachine<M: Machine>: HostedMachine {
  let name: String
  let kind: String
  let handle: MachineHandle<M>
  /// Unowned: the runtime owns this machine's observer, which owns this wrapper.
  unowned let runtime: Runtime
  let codec: TextCodec<M>
  // Read and written once per change, never across a call: no dynamic exclusivity checks.
  @exclusivity(unchecked) var changedInTurn: UInt64 = 0
  /// Parses and posts a text input; formed in `init`, so it runs the code specialized for `M`
  /// wherever `init` was (the `HostedMachine` witness of a generic class runs unspecialized
  /// and would look up `Optional<M.Input>`'s metadata on every request).
  private let postText: (UnsafeRawBufferPointer, PostTag) -> HostedPostResult
  /// Saves the record, formed in `init` for the same reason (every committed turn asks).
  private let saveRecord: (TextMachine<M>, MachineStore, () -> HostClock) throws(StoreError) -> Void

  /// Wraps a spawned machine and forwards its events, as text, to `events`.
  init(
    name: String, kind: String, handle: MachineHandle<M>, runtime: Runtime,
    codec: TextCodec<M>, events: @escaping (TextMachine<M>, HostedEvent) -> Void
  ) {
    self.name = name
    self.kind = kind
    self.handle = handle
    self.runtime = runtime
    self.codec = codec
    postText = { text, tag in
      guard let input = codec.parseInputUTF8(text) else { return .unknownInput }
      switch handle.post(input, tag: tag) {
      case .accepted: return .accepted
      case .queueFull: return .busy
      case .noMachine: return .noMachine
      }
    }
    saveRecord = { machine, store, clock throws(StoreError) in
      try machine.saveSpecialized(into: store, clock: clock)
    }
    // The observer keeps this wrapper alive until the machine is removed, which clears it.
    handle.observe { event in
      switch event {
      case .replied(.success(let input, let from, let to), let tag):
        events(
          self,
          .succeeded(
            input: codec.formatInput(input), from: codec.formatState(from),
            to: codec.formatState(to), tag: tag))
      case .replied(.failure(let input, let state), let tag):
        events(
          self,
          .rejected(input: codec.formatInput(input), state: codec.formatState(state), tag: tag))
      case .emitted(let output):
        events(self, .emitted(codec.formatOutput(output)))
      }
    }
  }

  var stateText: String? { handle.state.map(codec.formatState) }

  var statistics: MachineStatistics { handle.statistics }

  var queuedInputs: Int { handle.queuedInputs }

  func post(utf8 input: UnsafeRawBufferPointer, tag: PostTag) -> HostedPostResult {
    postText(input, tag)
  }

  func save(into store: MachineStore, clock: () -> HostClock) throws(StoreError) {
    try saveRecord(self, store, clock)
  }

  @inline(__always)
  private func saveSpecialized(into store: MachineStore, clock: () -> HostClock)
    throws(StoreError)
  {
    guard let state = handle.state else { return }
    // Most machines have no effect in flight: no record built, no timer snapshot.
    guard handle.effectsInFlight > 0 else {
      return try store.save(name: name, kind: kind, state: codec.formatState(state))
    }
    if let record = stored(clock: clock()) { try store.save(record) }
  }

  func stored(clock: HostClock) -> StoredMachine? {
    guard let state = handle.state else { return nil }
    let timers = handle.timers.map { timer in
      StoredTimer(
        input: codec.formatInput(timer.input), repeats: timer.repeats,
        spanNanoseconds: timer.span.nanoseconds,
        deadlineWallNanoseconds: timer.deadline.map(clock.wall),
        remainingNanoseconds: timer.deadline.map(clock.remaining(until:)), queue: timer.queue.index,
        effectID: timer.id.rawValue)
    }
    return StoredMachine(name: name, kind: kind, state: codec.formatState(state), timers: timers)
  }

  func restore(_ timers: [StoredTimer], clock: HostClock) -> [String] {
    var problems: [String] = []
    for timer in timers {
      guard let input = codec.parseInput(timer.input) else {
        problems.append("\(name): timer input \"\(timer.input)\" no longer exists in \(kind)")
        continue
      }
      let snapshot = TimerSnapshot(
        repeats: timer.repeats, span: .nanoseconds(timer.spanNanoseconds), input: input,
        deadline: clock.restoredDeadline(of: timer),
        queue: EffectQueue(timer.queue), id: EffectID(rawValue: timer.effectID))
      if !runtime.restore(snapshot, into: handle) {
        problems.append("\(name): no room to restore timer \(timer.input)")
      }
    }
    return problems
  }

  func remove() {
    runtime.remove(handle)
  }
}
