import Foundation
import Logging
import Millrace

/// The daemon's registry of named machines over one runtime, with durability (DESIGN §4). It
/// speaks in domain results only: it knows nothing of connections or of the protocol.
///
/// Guarantees:
/// - A `send` that is accepted is answered exactly once, to its `SendRequester`: with the
///   transition or the rejection once its input is processed, or with `.machineRemoved` when
///   the machine is killed first.
/// - Every change of a turn (spawns, processed inputs, kills) is committed by `finishTurn()`,
///   which says whether the commit held: whoever acknowledges a change holds the
///   acknowledgment until then, so an acknowledged transition survives `kill -9`.
/// - `onEvent`, when set, sees every event of every machine, in order, as it happens.
/// - Use on the loop thread only.
public final class MachineHost {
  /// The runtime the machines live in.
  public let runtime: Runtime
  /// The logger.
  public var logger: Logger
  /// How changes are kept.
  public let durability: Durability
  let store: MachineStore?
  var kinds: [String: HostKind] = [:]
  /// Looked up by a request's bytes (`NameIndex`): no `String` is made per `SEND`.
  @exclusivity(unchecked) var machines = NameIndex<any HostedMachine>()
  let clock: () -> HostClock

  /// A `send` whose input is queued: who is answered once the input is processed.
  private struct Waiter {
    var machine: ObjectIdentifier
    /// Held until answered (a client that closed is still answered, to no one).
    var requester: any SendRequester
    var ticket: UInt64
  }

  // The fields below are touched by every request and every turn, on the loop thread only,
  // and no access to one spans a call that could re-enter the host: no dynamic exclusivity
  // checks.
  /// The accepted `SEND`s whose input was not processed yet, by their inputs' tags.
  @exclusivity(unchecked) private var awaiting = TagTable<Waiter>()
  /// Machines changed in this turn, each once (its `changedInTurn` is `turn`); ones removed
  /// since are skipped when the turn is persisted.
  @exclusivity(unchecked) private var dirty: [any HostedMachine] = []
  /// Numbers turns for `changedInTurn`; moves on whenever `dirty` is emptied.
  @exclusivity(unchecked) private var turn: UInt64 = 1
  @exclusivity(unchecked) var deleted: Set<String> = []
  /// Whether a machine changed, was spawned or removed in this turn: only such a turn
  /// commits (with it, what a failed commit left in `dirty` and `deleted`).
  @exclusivity(unchecked) private var changedThisTurn = false
  /// Sees every machine event as it happens (the protocol layer publishes them); nil when
  /// nobody listens, so that events cost nothing more.
  @exclusivity(unchecked) public var onEvent: ((HostedEvent, any HostedMachine) -> Void)?
  /// Machines per kind name.
  @exclusivity(unchecked) private var countsByKind: [String: Int] = [:]
  /// Commits done (an accessor over unchecked storage: a `public` stored property is checked
  /// for exclusivity on every commit).
  public var commits: Int { commitCount }
  @exclusivity(unchecked) private var commitCount = 0
  /// Checkpoints of the store's journal into its snapshot (0 without a store).
  public var storeCheckpoints: Int { store?.checkpoints ?? 0 }
  /// Commits that failed (their acknowledgments became errors).
  public private(set) var commitFailures = 0
  /// Why the store can no longer keep changes (nil without a store or while it is usable).
  public var storeFailure: StoreFailure? { store?.failure }
  /// Machine changes (one per machine and turn) made while the store was unusable, so kept in
  /// memory only.
  public private(set) var unstoredChanges = 0

  /// Creates a host. `store` is nil for durability `none`; `clock` pairs the runtime's time
  /// with the wall clock for stored timer deadlines.
  public init(
    runtime: Runtime, store: MachineStore?, logger: Logger, clock: @escaping () -> HostClock
  ) {
    self.runtime = runtime
    self.store = store
    self.durability = store?.durability ?? .none
    self.logger = logger
    self.clock = clock
  }

  deinit {
    removeAll()
  }

  // MARK: Kinds

  /// Kind names, sorted.
  public var kindNames: [String] { kinds.keys.sorted() }

  /// The kind named `name`.
  public func kind(_ name: String) -> HostKind? { kinds[name] }

  /// Adds or replaces kinds. Machines already spawned keep the definition they started with
  /// (`replaceFileKinds(with:)` moves them).
  public func register(_ newKinds: [HostKind]) {
    for kind in newKinds { kinds[kind.name] = kind }
  }

  // MARK: Machines

  /// Machine names, sorted, optionally of one kind.
  public func machineNames(kind: String? = nil) -> [String] {
    machines.allValues.filter { kind == nil || $0.kind == kind }.map(\.name).sorted()
  }

  /// The machine named `name`.
  public func machine(_ name: String) -> (any HostedMachine)? { machines[name] }

  /// How many machines are hosted.
  public var machineCount: Int { machines.count }

  /// How many machines of `kind` are hosted.
  public func machineCount(kind: String) -> Int { countsByKind[kind] ?? 0 }

  /// Visits the machines of one step of a SCAN-style iteration: about `count` buckets from
  /// `cursor`; returns the next cursor (0 when the iteration is complete). A machine hosted
  /// for the whole iteration is visited at least once; one may be visited more than once.
  public func scanMachines(
    from cursor: UInt64, count: Int, _ visit: (any HostedMachine) -> Void
  ) -> UInt64 {
    machines.scan(from: cursor, count: count) { _, machine in visit(machine) }
  }

  /// Spawns `name` of `kind` in `state` (initial when nil); the change is committed at the
  /// end of the turn.
  public func spawn(kind kindName: String, name: String, state: String?) -> Result<
    any HostedMachine, HostFailure
  > {
    guard machines[name] == nil else { return .failure(.init(.exists, "machine \(name) exists")) }
    guard let kind = kinds[kindName] else {
      return .failure(.init(.nokind, "no kind \(kindName)"))
    }
    // unowned(unsafe): no reference counting per event. The host outlives its machines: it
    // removes them all when it goes (`deinit`), so no event can reach a dead host.
    switch kind.spawn(runtime, name, state, { [unowned(unsafe) self] in self.handle($1, of: $0) }) {
    case .success(let machine):
      machines.set(machine, for: name)
      countsByKind[kindName, default: 0] += 1
      deleted.remove(name)
      markChanged(machine)
      return .success(machine)
    case .failure(.unknownState(let state)):
      return .failure(.init(.nostate, "kind \(kindName) has no state \(state)"))
    case .failure(.full):
      return .failure(.init(.busy, "no room for another machine"))
    }
  }

  /// Removes `name`: its timers and effects are cancelled, its stored record deleted, and the
  /// sends still waiting for it are answered with `.machineRemoved`.
  public func kill(_ name: String) -> Bool {
    guard removeMachine(named: name) != nil else { return false }
    deleted.insert(name)
    changedThisTurn = true
    return true
  }

  /// Takes `name` out of the registry and the runtime; answers the sends that waited for it.
  func removeMachine(named name: String) -> (any HostedMachine)? {
    guard let machine = machines.removeValue(for: name) else { return nil }
    machine.remove()
    countsByKind[machine.kind, default: 1] -= 1
    if countsByKind[machine.kind] == 0 { countsByKind[machine.kind] = nil }
    for waiter in awaiting.removeAll(where: { $0.machine == ObjectIdentifier(machine) }) {
      waiter.requester.sendFinished(ticket: waiter.ticket, .machineRemoved(name))
    }
    return machine
  }

  /// Posts `input` to `name`; on success `requester` is answered once the input is processed
  /// (`SendRequester.sendFinished`), with `ticket`.
  public func send(
    _ input: String, to name: String, requester: any SendRequester, ticket: UInt64
  ) -> Result<Void, HostFailure> {
    input.withUTF8Bytes { input in
      name.withUTF8Bytes { name in
        send(utf8: input, to: name, requester: requester, ticket: ticket)
      }
    }
  }

  /// `send` for a request's words as they arrived (UTF-8 bytes): the machine and the input are
  /// found without making a `String`. The words are not checked against the name rule here:
  /// no machine or input has a name that breaks it, so such a word is simply not found.
  public func send(
    utf8 input: UnsafeRawBufferPointer, to name: UnsafeRawBufferPointer,
    requester: any SendRequester, ticket: UInt64
  ) -> Result<Void, HostFailure> {
    guard let machine = machines.value(forUTF8: name) else {
      return .failure(.init(.nomachine, "no machine \(String(decoding: name, as: UTF8.self))"))
    }
    switch machine.post(utf8: input, tag: PostTag(awaiting.nextTag)) {
    case .accepted:
      _ = awaiting.insert(
        Waiter(machine: ObjectIdentifier(machine), requester: requester, ticket: ticket))
      return .success(())
    case .busy: return .failure(.init(.busy, "queue of \(machine.name) is full"))
    case .unknownInput:
      let input = String(decoding: input, as: UTF8.self)
      return .failure(.init(.noinput, "kind \(machine.kind) has no input \(input)"))
    case .noMachine: return .failure(.init(.nomachine, "no machine \(machine.name)"))
    }
  }

  // MARK: Events

  private func handle(_ event: HostedEvent, of machine: any HostedMachine) {
    // Only a store needs to know what changed; without one, skip hashing the name.
    if store != nil, case .succeeded = event { markChanged(machine) }
    if event.tag != .none, let waiter = awaiting.remove(tag: event.tag.rawValue) {
      let outcome: SendOutcome =
        switch event {
        case .succeeded(_, let from, let to, _): .moved(from: from, to: to)
        case .rejected(let input, let state, _): .rejected(input: input, state: state)
        case .emitted: .machineRemoved(machine.name)  // outputs carry no tag
        }
      waiter.requester.sendFinished(ticket: waiter.ticket, outcome)
    }
    onEvent?(event, machine)
  }

  // MARK: Turns

  /// Commits the turn's changes (when something changed). A failed commit keeps the turn's
  /// changes for the next turn that changes something, whose commit writes them again with its
  /// own (whole states: the live machines and the store agree again once a commit holds).
  public func finishTurn() -> TurnOutcome {
    guard changedThisTurn else { return TurnOutcome(refusal: nil, removedMachines: false) }
    let removedMachines = !deleted.isEmpty
    var committed = true
    if let store {
      committed = store.failure == nil && persist(into: store, machines: dirty)
      if store.failure != nil {
        // Nothing more can be kept: what changed is counted, not retried (a clean stop
        // rebuilds the store from memory).
        unstoredChanges += dirty.count + deleted.count
        forgetChanges(keepingCapacityUpTo: Self.keptCapacity)
        deleted.removeAll()
      }
    }
    changedThisTurn = false
    // The turn's bookkeeping keeps its capacity for the next turn, unless a burst (thousands
    // of pipelined SENDs) grew it: then it is released, so the memory comes back afterwards.
    let keep = Self.keptCapacity
    if committed {
      if !dirty.isEmpty { forgetChanges(keepingCapacityUpTo: keep) }
      if !deleted.isEmpty { deleted.removeAll(keepingCapacity: deleted.capacity <= keep) }
    }
    awaiting.shrinkIfEmpty(keeping: keep)
    let refusal =
      committed
      ? nil
      : store?.failure.map { HostFailure.storeUnusable($0, changeMade: true) }
        ?? HostFailure(
          .internal,
          "store commit failed: the change is made but not durable (retried at the next commit)")
    return TurnOutcome(refusal: refusal, removedMachines: removedMachines)
  }

  /// Entries the per-turn containers keep room for between turns.
  static let keptCapacity = 1024

  /// Saves every machine (fresh timer deadlines), commits and checkpoints the journal into the
  /// snapshot; for shutdown. A store found unusable (`MachineStore.verify()`) is rebuilt from
  /// memory at its directory instead (`StoreRebuild`). Returns whether every machine is kept.
  @discardableResult
  public func persistAll() -> Bool {
    guard let store else { return true }
    store.verify()
    var kept = store.failure == nil && persist(into: store, machines: machines.allValues)
    if let failure = store.failure {
      kept = rebuild(store, failure: failure, machines: machines.allValues, clock: clock())
    } else if kept {
      do {
        try store.checkpoint()
      } catch {
        logger.warning("store checkpoint at shutdown failed (the journal keeps it): \(error)")
      }
    }
    forgetChanges(keepingCapacityUpTo: 0)
    deleted.removeAll()
    changedThisTurn = false
    return kept
  }

  /// Notes that `machine` changed in this turn (its record is saved at the turn's end).
  @inline(__always)
  func markChanged(_ machine: any HostedMachine) {
    changedThisTurn = true
    guard machine.changedInTurn != turn else { return }
    machine.changedInTurn = turn
    dirty.append(machine)
  }

  /// Empties `dirty`, and starts a new turn number so that every machine can be marked again.
  func forgetChanges(keepingCapacityUpTo limit: Int) {
    dirty.removeAll(keepingCapacityUpTo: limit)
    turn &+= 1
  }

  func persist(into store: MachineStore, machines: [any HostedMachine]) -> Bool {
    // Read once, and only if a machine has timer deadlines to store (most turns have none).
    // The closure is passed as written (non-escaping): no box for `now`.
    var now: HostClock?
    do {
      try store.begin()
      for name in deleted { try store.delete(name: name) }
      for machine in machines {
        try machine.save(into: store) {
          if let now { return now }
          let time = clock()
          now = time
          return time
        }
      }
      let failedBefore = store.checkpointFailure != nil
      try store.commit()
      commitCount += 1
      if !failedBefore, let failure = store.checkpointFailure {
        logger.error("store checkpoint failed (changes stay in the journal): \(failure)")
      }
      return true
    } catch {
      commitFailures += 1
      logger.error("store commit failed: \(error)")
      return false
    }
  }

  /// Restores every stored machine, or throws before spawning any: when the store cannot be
  /// read, when the machines or their timers exceed the runtime's capacity, or when stored
  /// machines need a kind, state, input or queue the kinds lack and no `migrate` maps it
  /// (see `DefinitionCheck`). With `droppingUnmappable` such machines and timers are dropped
  /// from the store instead. Returns what the caller should log (a summary of what was
  /// mapped or dropped; timers that could not be re-armed).
  public func restore(droppingUnmappable: Bool = false) throws(RestoreRefusal) -> [String] {
    guard let store else { return [] }
    var records: [StoredMachine]
    do {
      records = try store.loadAll()
    } catch {
      throw .unreadable("\(error)")
    }
    let plan = try planRestore(&records, droppingUnmappable: droppingUnmappable)
    var problems = plan.notes
    let now = clock()
    for record in records {
      switch spawn(kind: record.kind, name: record.name, state: record.state) {
      case .success(let machine):
        problems += machine.restore(record.timers, clock: now)
      case .failure(let failure):
        problems.append("\(record.name): not restored: \(failure.text)")
      }
    }
    forgetChanges(keepingCapacityUpTo: 0)
    return problems + saveRestored(plan)
  }

  /// Removes every machine from the runtime (not from the store); for shutdown.
  public func removeAll() {
    for machine in machines.allValues { machine.remove() }
    machines.removeAll()
    countsByKind.removeAll()
  }
}
