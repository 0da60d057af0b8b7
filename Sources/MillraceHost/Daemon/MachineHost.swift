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
/// - A hosted machine costs the host its `MachineDirectory` entry (32 bytes, its name inline
///   up to 16 bytes) and 4 to 8 bytes of index: no object, closure or `String` per machine.
///   Its behaviour is its kind's (`KindOperations`), and its events reach the host through
///   one observer per machine type (`Runtime.observeAll`).
/// - Use on the loop thread only.
public final class MachineHost {
  /// The runtime the machines live in.
  public let runtime: Runtime
  /// The logger.
  public var logger: Logger
  /// How changes are kept.
  public let durability: Durability
  let store: MachineStore?
  let clock: () -> HostClock
  /// The kinds machines run under, by slot (`DirectoryEntry.kind`); nil for a free slot.
  @exclusivity(unchecked) var kindSlots: [KindSlot?] = []
  /// The operations of each kind slot, unretained (the slots keep them): read on every
  /// request and event without reference counting (`withOperations(of:)`).
  @exclusivity(unchecked) var operationsBySlot: UnsafeMutablePointer<Unmanaged<KindOperations>?> =
    .allocate(capacity: 1)
  /// The registered kinds' slots, by name.
  var kindsByName: [String: UInt16] = [:]
  /// The machines, by runtime slot and by name: looked up by a request's bytes, so no
  /// `String` is made per `SEND`.
  let directory: MachineDirectory
  /// The machines of each hash slot, on a cluster node (`trackSlots()`); nil otherwise.
  @exclusivity(unchecked) var slotMembers: SlotMembership?
  /// The machine types observed (`observe(_:)`), each with how to stop observing it.
  var observedTypes: [ObjectIdentifier: () -> Void] = [:]

  /// A `send` whose input is queued: who is answered once the input is processed.
  struct Waiter {
    var machine: MachineID
    /// Held until answered (a client that closed is still answered, to no one).
    var requester: any SendRequester
    var ticket: UInt64
  }

  /// A `send` being resolved in place (`send(utf8:...)`): who its reply event answers. The
  /// requester is not retained: it is the caller's, alive for the call.
  struct InPlaceSend {
    unowned(unsafe) var requester: any SendRequester
    var ticket: UInt64
  }

  // The fields below are touched by every request and every turn, on the loop thread only,
  // and no access to one spans a call that could re-enter the host: no dynamic exclusivity
  // checks.
  /// The accepted `SEND`s whose input was not processed yet, by their inputs' tags.
  @exclusivity(unchecked) var awaiting = TagSlab<Waiter>()
  /// The `send` whose input is being resolved in place; nil outside it.
  @exclusivity(unchecked) var inPlace: InPlaceSend?
  /// The `SEND` or `SPAWN` the step being resolved answered (`MachineHost+Overflow.swift`).
  @exclusivity(unchecked) var answeredStep: AnsweredStep?
  /// The waiter `answeredStep` answered, holding its requester until the step's end.
  @exclusivity(unchecked) var answeredWaiter: Waiter?
  /// The slots of machines changed in this turn (each marked `DirectoryEntry.isChanged`, so
  /// listed once); ones removed since are skipped when the turn is persisted.
  @exclusivity(unchecked) var dirty: [UInt32] = []
  /// The machines removed since the last commit, deleted from the store before its saves (so
  /// that a name or slot taken again in the same turn ends up holding the new machine).
  @exclusivity(unchecked) var deleted: [Deletion] = []
  /// Whether a machine changed, was spawned or removed in this turn: only such a turn
  /// commits (with it, what a failed commit left in `dirty` and `deleted`).
  @exclusivity(unchecked) var changedThisTurn = false
  /// Machines killed in this turn.
  @exclusivity(unchecked) var removedThisTurn = 0
  /// Sees every machine event as it happens (the protocol layer publishes them); nil when
  /// nobody listens, so that events cost nothing more (no text is made for an event nobody
  /// waits for).
  @exclusivity(unchecked) public var onEvent: ((HostedEvent, HostedMachine) -> Void)?
  /// Commits done (an accessor over unchecked storage: a `public` stored property is checked
  /// for exclusivity on every commit).
  public var commits: Int { commitCount }
  @exclusivity(unchecked) var commitCount = 0
  /// Checkpoints of the store's journal into its snapshot (0 without a store).
  public var storeCheckpoints: Int { store?.checkpoints ?? 0 }
  /// Commits that failed (their acknowledgments became errors).
  public internal(set) var commitFailures = 0
  /// Why the store can no longer keep changes (nil without a store or while it is usable).
  public var storeFailure: StoreFailure? { store?.failure }
  /// Machine changes (one per machine and turn) made while the store was unusable, so kept in
  /// memory only.
  public internal(set) var unstoredChanges = 0
  /// What the runtime dropped for lack of room, by cause (`MachineHost+Overflow.swift`).
  public internal(set) var overflowCounts = OverflowCounts()
  /// When an overflow was last logged, and how many were not logged since.
  var lastOverflowLog: ContinuousClock.Instant?
  var overflowsNotLogged = 0

  /// Creates a host. `store` is nil for durability `none`; `clock` pairs the runtime's time
  /// with the wall clock for stored timer deadlines. `nameSeed` fixes the seed of the name
  /// hash (tests); by default it is random.
  public init(
    runtime: Runtime, store: MachineStore?, logger: Logger, nameSeed: UInt64? = nil,
    clock: @escaping () -> HostClock
  ) {
    self.runtime = runtime
    self.store = store
    self.durability = store?.durability ?? .none
    self.logger = logger
    self.clock = clock
    directory = MachineDirectory(capacity: runtime.capacity.machines, seed: nameSeed)
    observeOverflow()
  }

  deinit {
    runtime.onDiagnostic = nil
    removeAll()
    for stopObserving in observedTypes.values { stopObserving() }
    operationsBySlot.deallocate()
  }

  // MARK: Kinds

  /// Kind names, sorted.
  public var kindNames: [String] { kindsByName.keys.sorted() }

  /// The kind named `name`.
  public func kind(_ name: String) -> HostKind? { kindsByName[name].map { slot($0).kind } }

  /// The registered kinds, by name.
  var registeredKinds: [String: HostKind] { kindsByName.mapValues { slot($0).kind } }

  /// The kind slot `index` (taken).
  @inline(__always)
  func slot(_ index: UInt16) -> KindSlot { kindSlots[Int(index)].unsafelyUnwrapped }

  /// Calls `body` with the operations of kind slot `index` (taken), borrowed.
  @inline(__always)
  func withOperations<Result>(of index: UInt16, _ body: (KindOperations) -> Result) -> Result {
    operationsBySlot[Int(index)].unsafelyUnwrapped._withUnsafeGuaranteedRef(body)
  }

  /// Adds or replaces kinds. Machines already spawned keep the definition they started with
  /// (`replaceFileKinds(with:)` moves them).
  public func register(_ newKinds: [HostKind]) {
    for kind in newKinds {
      if let old = kindsByName[kind.name] { unregister(old) }
      let index = kindSlots.firstIndex { $0 == nil } ?? kindSlots.count
      precondition(index <= Int(UInt16.max), "more kinds than a host can hold")
      let slot = KindSlot(kind: kind, operations: kind.bind(self))
      if index == kindSlots.count { kindSlots.append(slot) } else { kindSlots[index] = slot }
      kindsByName[kind.name] = UInt16(index)
      // Before the next kind, which may replace this one (a slot freed must be in the table).
      rebuildOperations()
    }
  }

  /// Takes the kind in slot `index` off its name; frees the slot if no machine runs under it.
  func unregister(_ index: UInt16) {
    let old = slot(index)
    kindsByName[old.kind.name] = nil
    old.isRegistered = false
    if old.machines == 0 { freeSlot(index) }
  }

  /// Frees kind slot `index`.
  func freeSlot(_ index: UInt16) {
    kindSlots[Int(index)] = nil
    operationsBySlot[Int(index)] = nil
  }

  /// Rewrites `operationsBySlot` from `kindSlots`.
  private func rebuildOperations() {
    operationsBySlot.deallocate()
    operationsBySlot = .allocate(capacity: max(kindSlots.count, 1))
    for (index, slot) in kindSlots.enumerated() {
      (operationsBySlot + index).initialize(
        to: slot.map { Unmanaged.passUnretained($0.operations) })
    }
  }

  // MARK: Machines

  /// A reference to the machine in directory slot `slot` (taken).
  func reference(_ slot: UInt32) -> HostedMachine {
    let entry = directory.entry(slot)
    return HostedMachine(
      host: self, id: entry.pointee.id(slot: slot), name: entry.name,
      kind: self.slot(entry.pointee.kind).kind.name)
  }

  /// The operations of the machine `id` names, while it is hosted.
  func operations(of id: MachineID) -> KindOperations? {
    directory.entry(of: id).map { slot($0.pointee.kind).operations }
  }

  /// Machine names, sorted, optionally of one kind.
  public func machineNames(kind: String? = nil) -> [String] {
    var names: [String] = []
    // Which kind slots are the kind's (machines started under a definition since replaced
    // keep its slot), looked up per machine by number: a name comparison per machine made
    // `LIST kind` walk a million machines in tens of milliseconds.
    let wanted = kind.map { kind in kindSlots.map { $0?.kind.name == kind } }
    directory.forEachSlot { index in
      let entry = directory.entry(index)
      if let wanted, !wanted[Int(entry.pointee.kind)] { return }
      names.append(entry.name)
    }
    return names.sorted()
  }

  /// The machine named `name`.
  public func machine(_ name: String) -> HostedMachine? {
    directory.slot(of: name).map(reference)
  }

  /// How many machines are hosted.
  public var machineCount: Int { directory.count }

  /// How many machines of `kind` are hosted.
  public func machineCount(kind: String) -> Int {
    kindSlots.reduce(0) { $0 + ($1?.kind.name == kind ? $1!.machines : 0) }
  }

  /// Visits the machines of one step of a SCAN-style iteration: about `count` buckets from
  /// `cursor`; returns the next cursor (0 when the iteration is complete). A machine hosted
  /// for the whole iteration is visited at least once; one may be visited more than once.
  /// `visit` must not call back into the host (no spawn, kill or lookup by name).
  public func scanMachines(
    from cursor: UInt64, count: Int, _ visit: (HostedMachine) -> Void
  ) -> UInt64 {
    directory.scan(from: cursor, count: count) { visit(reference($0)) }
  }

  /// Spawns `name` of `kind` in `state` (initial when nil) and has it run the entry effects
  /// of the states it starts in (`KindLifecycle.startInput`); the change is committed at the
  /// end of the turn.
  public func spawn(kind kindName: String, name: String, state: String?) -> Result<
    HostedMachine, HostFailure
  > {
    spawn(kind: kindName, name: name, state: state, starting: .none).map(\.machine)
  }

  /// `spawn`, for a request: when the machine has entry effects to run (`KindLifecycle
  /// .startInput`), `requester` is answered once they ran (`SendRequester.sendFinished`, with
  /// `ticket`), as a `SEND` is, so that the acknowledgment waits for the commit that keeps
  /// the timers they started; `started` is then false. Otherwise nothing is posted and
  /// `started` is true.
  public func spawn(
    kind kindName: String, name: String, state: String?, answering requester: any SendRequester,
    ticket: UInt64
  ) -> Result<(machine: HostedMachine, started: Bool), HostFailure> {
    spawn(kind: kindName, name: name, state: state, starting: (requester, ticket))
  }

  private func spawn(
    kind kindName: String, name: String, state: String?,
    starting waiter: (requester: any SendRequester, ticket: UInt64)?
  ) -> Result<(machine: HostedMachine, started: Bool), HostFailure> {
    place(kind: kindName, name: name, state: state).flatMap { id in
      let tag = waiter == nil ? PostTag.none : PostTag(awaiting.nextTag)
      let started: Bool
      switch slot(directory.entry(id.index).pointee.kind).operations.start(id, tag) {
      case .nothingToRun: started = true
      case .posted:
        started = false
        if let waiter {
          _ = awaiting.insert(
            Waiter(machine: id, requester: waiter.requester, ticket: waiter.ticket))
        }
      case .full:
        removeMachine(id.index)
        return .failure(.init(.busy, "no room in \(name)'s queue for its start"))
      }
      markChanged(id.index)
      return .success((HostedMachine(host: self, id: id, name: name, kind: kindName), started))
    }
  }

  /// Spawns `name` of `kind` in `state` (initial when nil) and enters it in the directory,
  /// without marking it changed (a restored machine is stored already); refused when a
  /// machine has the name.
  func place(kind kindName: String, name: String, state: String?) -> Result<MachineID, HostFailure>
  {
    guard let index = kindsByName[kindName] else {
      guard directory.slot(of: name) == nil else { return .failure(.nameTaken(name)) }
      return .failure(.init(.nokind, "no kind \(kindName)"))
    }
    return name.withUTF8Bytes { name in
      guard let state else { return place(kindSlot: index, name: name, state: nil, .checked) }
      return state.withUTF8Bytes { place(kindSlot: index, name: name, state: $0, .checked) }
    }
  }

  /// How `place(kindSlot:name:state:_:)` files a machine in the directory.
  enum Filing {
    /// Looked up first: refused when a machine has the name.
    case checked
    /// Not looked up (the caller knows no machine has the name: a restore into an empty host,
    /// whose stored names are unique) and left out of the name index until the caller indexes
    /// it (`MachineDirectory.insertUnindexed`, `index(_:)`).
    case unindexed
  }

  /// `place(kind:name:state:)` for the kind in slot `index`, the name and state given as
  /// UTF-8 bytes (as the store's rows hold them), filed as `filing` says, in runtime slot
  /// `preferredSlot` when the runtime can give it (see `Runtime.spawn`; the id returned says
  /// which slot the machine got).
  func place(
    kindSlot index: UInt16, name: UnsafeRawBufferPointer, state: UnsafeRawBufferPointer?,
    _ filing: Filing, preferredSlot: UInt32? = nil
  ) -> Result<MachineID, HostFailure> {
    guard filing == .unindexed || directory.slot(ofUTF8: name) == nil else {
      return .failure(.nameTaken(String(decoding: name, as: UTF8.self)))
    }
    let kind = slot(index)
    switch kind.operations.spawn(state, preferredSlot) {
    case .success(let id):
      if filing == .unindexed {
        directory.insertUnindexed(name: name, id: id, kind: index)
      } else {
        directory.insert(name: name, id: id, kind: index)
      }
      slotMembers?.insert(id.index, slot: Int(HashSlot.of(name)))
      kind.machines += 1
      return .success(id)
    case .failure(.unknownState(let state)):
      return .failure(.init(.nostate, "kind \(kind.kind.name) has no state \(state)"))
    case .failure(.refused(let reason)):
      return .failure(.init(.busy, "no room for another machine: \(Self.describe(reason))"))
    }
  }

  /// The limit a refused spawn reached, as a reply names it.
  static func describe(_ reason: SpawnError) -> String {
    switch reason {
    case .machineSlotsFull: "every machine slot is in use (--max-machines)"
    case .blockBytesUsedUp: "the bytes reserved for machines are used up"
    case .variantsFull:
      "the runtime has as many machine variants (type and queue layout) as it can hold"
    case .outOfMemory: "out of memory"
    }
  }

  /// Removes `name`: its timers and effects are cancelled, its stored record deleted, and the
  /// sends still waiting for it are answered with `.machineRemoved`.
  public func kill(_ name: String) -> Bool {
    guard let slot = directory.slot(of: name) else { return false }
    removeMachine(slot, named: name)
    deleted.append(Deletion(slot: slot, name: name))
    changedThisTurn = true
    removedThisTurn += 1
    return true
  }

  /// Takes the machine in directory slot `index` out of the registry and the runtime; answers
  /// the sends that waited for it (named `name`, or by its entry's name).
  func removeMachine(_ index: UInt32, named name: String? = nil) {
    let entry = directory.entry(index)
    let id = entry.pointee.id(slot: index)
    let kindIndex = entry.pointee.kind
    let kind = slot(kindIndex)
    let name = name ?? entry.name
    kind.operations.remove(id)
    if let slotMembers { slotMembers.remove(index, slot: Int(entry.withName(HashSlot.of))) }
    directory.remove(index)
    kind.machines -= 1
    if kind.machines == 0 && !kind.isRegistered { freeSlot(kindIndex) }
    guard !awaiting.isEmpty else { return }
    for waiter in awaiting.removeAll(where: { $0.machine == id }) {
      waiter.requester.sendFinished(ticket: waiter.ticket, .machineRemoved(name))
    }
  }

  /// Posts `input` to `name`; on success `requester` is answered once the input is processed
  /// (`SendRequester.sendFinished`), with `ticket`: before this returns when no machine had
  /// an input queued (the input is then resolved in place), at a later dispatch otherwise.
  /// `arguments` are the input's, each a value's text form.
  public func send(
    _ input: String, _ arguments: [String] = [], to name: String, requester: any SendRequester,
    ticket: UInt64
  ) -> Result<Void, HostFailure> {
    input.withUTF8Bytes { input in
      name.withUTF8Bytes { name in
        String.withUTF8Buffers(arguments) { arguments in
          send(utf8: input, arguments: arguments, to: name, requester: requester, ticket: ticket)
        }
      }
    }
  }

  /// `send` for a request's words as they arrived (UTF-8 bytes): the machine and the input are
  /// found without making a `String`. The words are not checked against the name rule here:
  /// no machine or input has a name that breaks it, so such a word is simply not found.
  /// `prefetched` is the state the request's prefetch stages left (`prefetchSends(from:)`),
  /// or 0: the lookup of `name` starts from the machine they found, if it still holds the
  /// name, and is done in full otherwise.
  public func send(
    utf8 input: UnsafeRawBufferPointer,
    arguments: UnsafeBufferPointer<UnsafeRawBufferPointer> = .init(start: nil, count: 0),
    to name: UnsafeRawBufferPointer, prefetched: UInt64 = 0, requester: any SendRequester,
    ticket: UInt64
  ) -> Result<Void, HostFailure> {
    guard let index = directory.slot(ofUTF8: name, prefetched: prefetched) else {
      return .failure(Self.noMachine(named: name))
    }
    let entry = directory.entry(index)
    let id = entry.pointee.id(slot: index)
    // With nothing queued, the input would be the next one the loop's dispatch resolves: it is
    // resolved now, and its reply event answers the requester directly (`deliver`), with no
    // waiter filed and no text made for the event. Untagged, a small input waits in the
    // machine's block rather than in a cell of the input pool.
    let atRest = runtime.isAtRest
    let tag = atRest ? PostTag.none : PostTag(awaiting.nextTag)
    let outcome = withOperations(of: entry.pointee.kind, { $0.post(id, input, arguments, tag) })
    guard case .accepted = outcome else {
      return .failure(refusal(outcome, of: index, input: input))
    }
    guard atRest else {
      _ = awaiting.insert(Waiter(machine: id, requester: requester, ticket: ticket))
      return .success(())
    }
    inPlace = InPlaceSend(requester: requester, ticket: ticket)
    runtime.dispatch(limit: 1)
    // The machine was the only one ready, with this input alone queued: the step resolved it.
    precondition(inPlace == nil, "an input resolved in place was not answered")
    return .success(())
  }

  /// The failure of a `SEND` to a name no machine has.
  @inline(never)
  private static func noMachine(named name: UnsafeRawBufferPointer) -> HostFailure {
    .init(.nomachine, "no machine \(String(decoding: name, as: UTF8.self))")
  }

  /// The failure of a `SEND` whose post the machine in directory slot `index` refused.
  @inline(never)
  private func refusal(_ outcome: HostedPostResult, of index: UInt32, input: UnsafeRawBufferPointer)
    -> HostFailure
  {
    let entry = directory.entry(index)
    switch outcome {
    case .accepted: preconditionFailure("an accepted post is no refusal")
    case .noMachine: return .init(.nomachine, "no machine \(entry.name)")
    case .queueFull:
      return .init(
        .busy, busyText(entry.name, id: entry.pointee.id(slot: index), kind: entry.pointee.kind))
    case .unknownInput:
      let input = String(decoding: input, as: UTF8.self)
      let kind = slot(entry.pointee.kind).kind.name
      return .init(.noinput, "kind \(kind) has no input \(input)")
    case .badArguments(let problem):
      return .init(.noinput, "kind \(slot(entry.pointee.kind).kind.name): \(problem)")
    }
  }

  /// Why an input was refused for want of room: the machine's own queue at its limit, or the
  /// runtime's pool of queued inputs, which every machine shares, used up.
  private func busyText(_ name: String, id: MachineID, kind: UInt16) -> String {
    let queued = withOperations(of: kind) { $0.queuedInputs(id) }
    let capacity = runtime.capacity
    guard queued < capacity.inputsPerMachine else {
      return "queue of \(name) is full (\(queued) inputs)"
    }
    return "the input pool is full: all \(capacity.inputs) queued-input cells are taken "
      + "(--max-inputs), \(queued) of them by \(name)"
  }

  /// Removes every machine from the runtime (not from the store); for shutdown.
  public func removeAll() {
    directory.forEachSlot { index in
      let entry = directory.entry(index)
      slot(entry.pointee.kind).operations.remove(entry.pointee.id(slot: index))
    }
    directory.removeAll()
    slotMembers?.removeAll()
    for (index, kind) in kindSlots.enumerated() {
      guard let kind else { continue }
      kind.machines = 0
      if !kind.isRegistered { freeSlot(UInt16(index)) }
    }
    dirty.removeAll()
  }
}
