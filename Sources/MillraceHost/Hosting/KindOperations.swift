import Millrace

/// What a host does to the machines of one kind, by machine id: formed once per kind and
/// runtime (`HostKind.bind`), where the machine type is known, so that each closure runs the
/// code specialized for it (a generic witness would run unspecialized and look up the type's
/// metadata on every request). Nothing here is kept per machine.
///
/// Every function takes the id of a machine the kind spawned; an id of a removed machine (or
/// of another type) finds nothing: `.noMachine`, nil, 0 or no effect.
final class KindOperations {
  /// What `start` did.
  enum StartResult {
    /// The machine's states have no entry effects: it is started.
    case nothingToRun
    /// The start input is queued; its reply will carry the tag.
    case posted
    /// The machine's queue is full.
    case full
  }

  /// Spawns a machine in the state named by the UTF-8 bytes given (the initial state when
  /// nil), in the slot given if the runtime can give it (`Runtime.spawn`'s `preferredSlot`).
  let spawn:
    (_ state: UnsafeRawBufferPointer?, _ preferredSlot: UInt32?) -> Result<MachineID, SpawnFailure>
  /// Posts, with the tag, the input that runs the entry effects of the states a new machine
  /// is in, when its kind has one (`KindLifecycle.startInput`).
  let start: (MachineID, PostTag) -> StartResult
  /// Parses the input whose UTF-8 bytes are given (a request's words as they arrived: the
  /// input and its arguments) and posts it with the tag.
  let post:
    (MachineID, UnsafeRawBufferPointer, UnsafeBufferPointer<UnsafeRawBufferPointer>, PostTag)
      -> HostedPostResult
  /// The current state as text.
  let stateText: (MachineID) -> String?
  /// The current state's path (`on/playing`) and context variables as text.
  let stateDetails: (MachineID) -> (path: String, context: [(name: String, value: String)])?
  /// Inputs queued.
  let queuedInputs: (MachineID) -> Int
  /// Counters and high-water marks.
  let statistics: (MachineID) -> MachineStatistics
  /// The record to store (state and pending timers, deadlines on the wall clock), given the
  /// machine's name and kind name.
  let stored: (MachineID, _ name: String, _ kind: String, HostClock) -> StoredMachine?
  /// Saves the record into the store's open turn, the fastest way for the machine: without
  /// timers no record is built and `clock` is not asked. Returns whether the record saved
  /// holds no timers (false also when the machine is gone and nothing was saved).
  let save:
    (MachineID, _ name: UnsafeRawBufferPointer, _ kind: String, MachineStore, () -> HostClock)
      throws(StoreError) -> Bool
  /// Saves the machine's state alone into the store's open turn (`MachineStore.saveState`),
  /// when it has no effect in flight (so no timer); returns whether it did. For a machine
  /// whose last record in the store is a save without timers.
  let saveState: (MachineID, MachineStore) -> Bool
  /// Re-creates stored timers; a problem per timer that could not be restored (named by the
  /// machine's name and kind).
  let restore: (MachineID, _ name: String, _ kind: String, [StoredTimer], HostClock) -> [String]
  /// `restore` for the timers of a stored row as the store holds them (no `String` made but
  /// for a problem), the machine's name and kind given as UTF-8 bytes.
  let restoreStored:
    (
      MachineID, _ name: UnsafeRawBufferPointer, _ kind: UnsafeRawBufferPointer, StoredTimers,
      HostClock
    ) -> [String]
  /// Removes the machine from the runtime (effects cancelled, observers silenced).
  let remove: (MachineID) -> Void
  /// Prints an event of one of the kind's machines, given the address of the core's typed
  /// event (a `MachineEvent` of the kind's machine type). The host's one observer of each
  /// machine type passes it to the operations of the machine's kind, which the machine's
  /// directory entry names: a machine spawned by these operations is of their type, so the
  /// event always is.
  let print: (UnsafeRawPointer) -> HostedEvent
  /// What a `SEND` is answered with for a reply event of one of the kind's machines (given
  /// as `print`'s is), without the text `print` makes for the event's other readers: the
  /// input's name only for a rejection.
  let outcome: (UnsafeRawPointer) -> SendOutcome

  /// The operations of machines of type `M` in `runtime`, spawned with `extra` and `queues`
  /// (`M.Queue.policies` when nil), starting in `initial` unless a state is named, read and printed
  /// through `codec`, started and finished as `lifecycle` says.
  init<M: Machine>(
    _ type: M.Type, runtime: Runtime, initial: M.State, extra: M.Extra, queues: [QueuePolicy]?,
    codec: TextCodec<M>, lifecycle: KindLifecycle<M> = KindLifecycle()
  ) {
    let lookup = runtime.lookup(type)
    let queues = queues ?? M.Queue.policies
    spawn = { [unowned runtime] stateText, preferredSlot in
      var state = initial
      if let stateText {
        guard let parsed = codec.parseStateUTF8(stateText) else {
          return .failure(.unknownState(String(decoding: stateText, as: UTF8.self)))
        }
        state = parsed
      }
      do throws(SpawnError) {
        return .success(
          try runtime.spawn(
            type, state: state, extra: extra, queues: queues, preferredSlot: preferredSlot
          ).id)
      } catch {
        return .failure(.refused(error))
      }
    }
    start = { id, tag in
      guard let handle = lookup.handle(id), let state = handle.state,
        let input = lifecycle.startInput(state)
      else { return .nothingToRun }
      return lookup.post(input, tag: tag, to: id) == .accepted ? .posted : .full
    }
    post = { id, text, arguments, tag in
      let input: M.Input
      if arguments.isEmpty, let parsed = codec.parseInputUTF8(text) {
        input = parsed  // the common request, one lookup
      } else {
        switch codec.parseRequest(text, arguments) {
        case .success(let parsed): input = parsed
        case .failure(.unknownInput): return .unknownInput
        case .failure(.arguments(let problem)): return .badArguments(problem)
        }
      }
      switch lookup.post(input, tag: tag, to: id) {
      case .accepted: return .accepted
      case .queueFull: return .queueFull
      case .noMachine: return .noMachine
      }
    }
    stateText = { id in lookup.handle(id)?.state.map(codec.formatState) }
    stateDetails = { id in
      lookup.handle(id)?.state.map { (codec.formatPath($0), codec.context($0)) }
    }
    queuedInputs = { id in lookup.handle(id)?.queuedInputs ?? 0 }
    statistics = { id in lookup.handle(id)?.statistics ?? MachineStatistics() }
    let stored = { (id: MachineID, name: String, kind: String, clock: HostClock) in
      lookup.handle(id).flatMap { Self.record(of: $0, name: name, kind: kind, codec, clock) }
    }
    self.stored = stored
    save = { id, name, kind, store, clock throws(StoreError) in
      guard let handle = lookup.handle(id), let state = handle.state else { return false }
      // Most machines have no effect in flight: no record built, no timer snapshot.
      guard handle.effectsInFlight > 0 else {
        store.save(
          slot: id.index, nameUTF8: name, kind: kind, state: codec.formatStoredState(state))
        return true
      }
      try Self.saveWithTimers(stored, id, name: name, kind: kind, into: store, clock)
      return false
    }
    saveState = { id, store in
      guard let handle = lookup.handle(id), let state = handle.state,
        handle.effectsInFlight == 0
      else { return false }
      store.saveState(slot: id.index, state: codec.formatStoredState(state))
      return true
    }
    restore = { [unowned runtime] id, name, kind, timers, clock in
      Self.restore(
        timers, into: lookup.handle(id), runtime, name: { name }, kind: { kind }, codec, clock)
    }
    restoreStored = { [unowned runtime] id, name, kind, timers, clock in
      Self.restore(
        timers, into: lookup.handle(id), runtime, name: { String(decoding: name, as: UTF8.self) },
        kind: { String(decoding: kind, as: UTF8.self) }, codec, clock)
    }
    remove = { [unowned runtime] id in
      if let handle = lookup.handle(id) { runtime.remove(handle) }
    }
    let (formatInput, formatState, formatOutput) =
      (codec.formatInput, codec.formatState, codec.formatOutput)
    let isFinal = lifecycle.isFinal
    print = { event in
      switch event.assumingMemoryBound(to: MachineEvent<M.Input, M.State, M.Output>.self).pointee {
      case .replied(.handled(let input, let from, let to), let tag):
        .handled(
          input: formatInput(input), from: formatState(from), to: formatState(to),
          final: isFinal(to) && !isFinal(from), tag: tag)
      case .replied(.rejected(let input, let state), let tag):
        .rejected(input: formatInput(input), state: formatState(state), tag: tag)
      case .emitted(let output):
        .emitted(formatOutput(output))
      }
    }
    outcome = { event in
      switch event.assumingMemoryBound(to: MachineEvent<M.Input, M.State, M.Output>.self).pointee {
      case .replied(.handled(_, let from, let to), _):
        .moved(from: formatState(from), to: formatState(to))
      case .replied(.rejected(let input, let state), _):
        .rejected(input: formatInput(input), state: formatState(state))
      case .emitted: preconditionFailure("an output answers no SEND")
      }
    }
  }

  /// `save` for a machine with effects in flight: its record with a snapshot of each timer.
  @inline(never)
  private static func saveWithTimers(
    _ stored: (MachineID, String, String, HostClock) -> StoredMachine?, _ id: MachineID,
    name: UnsafeRawBufferPointer, kind: String, into store: MachineStore, _ clock: () -> HostClock
  ) throws(StoreError) {
    if let record = stored(id, String(decoding: name, as: UTF8.self), kind, clock()) {
      try store.save(record, slot: id.index)
    }
  }

  private static func record<M: Machine>(
    of handle: MachineHandle<M>, name: String, kind: String, _ codec: TextCodec<M>,
    _ clock: HostClock
  ) -> StoredMachine? {
    guard let state = handle.state else { return nil }
    let timers = handle.timers.map { timer in
      StoredTimer(
        input: codec.formatInput(timer.input), repeats: timer.repeats,
        spanNanoseconds: timer.span.nanoseconds,
        deadlineWallNanoseconds: timer.deadline.map(clock.wall),
        remainingNanoseconds: timer.deadline.map(clock.remaining(until:)), queue: timer.queue.index,
        effectID: timer.id.rawValue)
    }
    return StoredMachine(
      name: name, kind: kind, state: codec.formatStoredState(state), timers: timers)
  }

  /// Re-creates `timers` in the machine `handle` names; a problem per timer that could not be
  /// restored, named by `name()` and `kind()` (asked only then).
  private static func restore<M: Machine>(
    _ timers: some Sequence<some RestorableTimer>, into handle: MachineHandle<M>?,
    _ runtime: Runtime, name: () -> String, kind: () -> String, _ codec: TextCodec<M>,
    _ clock: HostClock
  ) -> [String] {
    guard let handle else { return ["\(name()): not restored"] }
    var problems: [String] = []
    for timer in timers {
      guard let input = timer.input(in: codec) else {
        problems.append(
          "\(name()): timer input \"\(timer.inputText)\" no longer exists in \(kind())")
        continue
      }
      let snapshot = TimerSnapshot(
        repeats: timer.repeats, span: .nanoseconds(timer.spanNanoseconds), input: input,
        deadline: timer.deadline(by: clock),
        queue: EffectQueue(timer.queue), id: EffectID(rawValue: timer.effectID))
      if !runtime.restore(snapshot, into: handle) {
        problems.append("\(name()): no room to restore timer \(timer.inputText)")
      }
    }
    return problems
  }
}
