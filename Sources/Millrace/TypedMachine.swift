/// A typed view of one machine: its record in the runtime's table, its block (state, extra,
/// bounded queue lists) and its cells in the runtime's input and effect pools, with everything
/// the runtime does to a machine of type `M`.
///
/// A view is made per operation and never stored. Every method runs on the runtime's thread.
/// Nothing here allocates except `run` effects (which create the job the driver receives),
/// spawning (the block) and the first observer, route or redirect (the side record).
@usableFromInline
struct TypedMachine<M: Machine> {
  @usableFromInline
  typealias Event = MachineEvent<M.Input, M.State, M.Output>
  /// What an observer of every machine of the type gets (`Runtime.observeAll`).
  @usableFromInline
  typealias KindEvent = (MachineID, Event)

  /// The runtime, unretained: it outlives every use of a view (it removes its machines before
  /// it goes away). Borrowed through `withRuntime`, never retained. Read from the table
  /// rather than kept in the view: a view of four words travels in registers to the
  /// out-of-line effect paths, where one of five is written to memory on every dispatch.
  @inlinable
  var runtime: Unmanaged<Runtime> { table._withUnsafeGuaranteedRef { $0.owner.unsafelyUnwrapped } }
  /// The runtime's machine table, unretained (the runtime and every handle hold it): posts and
  /// sends schedule through it directly, not through `runtime.table`, a load fewer on the way.
  @usableFromInline
  let table: Unmanaged<MachineTable>
  @usableFromInline
  let index: UInt32
  @usableFromInline
  let record: UnsafeMutablePointer<MachineRecord>
  /// The machine's kind entry: its layout, pools and observer (valid for the runtime's life,
  /// see `MachineTable.kinds`; an observer replaced meanwhile stays valid until the runtime
  /// goes).
  @usableFromInline
  let entry: UnsafePointer<KindEntry>
  /// The machine's block (read from the record on each use: a view small enough to travel in
  /// registers is worth more than the load).
  @inlinable
  var block: UnsafeMutableRawPointer { record.pointee.block.unsafelyUnwrapped }

  /// The machine in slot `index` of `table`, which must hold one (alive or awaiting release).
  @inlinable
  init(table: MachineTable, index: UInt32) {
    let record = table.records + Int(index)
    self.init(
      table: table, index: index, record: record,
      entry: UnsafePointer(table.kinds + Int(record.pointee.kind)))
  }

  /// The machine in slot `index` of `table`, with its record and kind entry.
  @inlinable
  init(
    table: MachineTable, index: UInt32, record: UnsafeMutablePointer<MachineRecord>,
    entry: UnsafePointer<KindEntry>
  ) {
    self.table = Unmanaged.passUnretained(table)
    self.index = index
    self.record = record
    self.entry = entry
  }

  /// The kind's layout (read only where effects need it: the input path does not).
  @inlinable
  var layout: UnsafePointer<BlockLayout> { entry.pointee.layout }

  /// The runtime's pool of this machine's input cells.
  @inlinable
  var inputPool: UnsafeMutablePointer<CellPool> { entry.pointee.inputs }

  /// Whether the block holds a slot for one queued input (`inlineInput`): when the machine
  /// type reserves one (`Machine.reservesInputSlot`), or when the input fits in the padding
  /// of a block of the state and extra alone (a block is at least a pointer and a whole
  /// number of its alignment, `BlockPool`), so that the slot does not make a machine bigger.
  /// A constant in specialized code.
  @inlinable
  static var hasInlineSlot: Bool {
    let (state, input, extra) = (
      MemoryLayout<M.State>.self, MemoryLayout<M.Input>.self, MemoryLayout<M.Extra>.self
    )
    if M.reservesInputSlot { return true }
    guard input.size <= 8 else { return false }
    let slotEnd = roundUp(state.size, to: input.alignment) + input.size
    let with = roundUp(slotEnd, to: extra.alignment) + extra.size
    let without = roundUp(state.size, to: extra.alignment) + extra.size
    let alignment = max(MemoryLayout<UnsafeRawPointer>.alignment, state.alignment, extra.alignment)
    // An input of at most 8 bytes is aligned to at most a pointer: `alignment` holds it.
    return roundUp(max(with, MemoryLayout<UnsafeRawPointer>.size), to: alignment)
      == roundUp(max(without, MemoryLayout<UnsafeRawPointer>.size), to: alignment)
  }

  /// `value` rounded up to a multiple of `alignment`.
  @inlinable
  static func roundUp(_ value: Int, to alignment: Int) -> Int {
    (value + alignment - 1) / alignment * alignment
  }

  /// The bytes the block reserves for the inline input (0 without an inline slot).
  @inlinable
  static var inlineInputSize: Int { hasInlineSlot ? MemoryLayout<M.Input>.size : 0 }

  /// The alignment of the inline input (1 without an inline slot, so that it adds no padding).
  @inlinable
  static var inlineInputAlignment: Int { hasInlineSlot ? MemoryLayout<M.Input>.alignment : 1 }

  /// Where the inline input is in the block: after the state, at an offset the types alone
  /// decide (a constant in specialized code), as `BlockLayout` lays it out.
  @inlinable
  static var inputOffset: Int {
    roundUp(MemoryLayout<M.State>.size, to: inlineInputAlignment)
  }

  /// Where the extra is in the block: after the inline input, as `BlockLayout` lays it out.
  @inlinable
  static var extraOffset: Int {
    roundUp(inputOffset + inlineInputSize, to: MemoryLayout<M.Extra>.alignment)
  }

  /// Runs `body` with the runtime borrowed, not retained.
  @inlinable
  func withRuntime<Result>(_ body: (Runtime) -> Result) -> Result {
    runtime._withUnsafeGuaranteedRef(body)
  }

  @inlinable
  var id: MachineID { MachineID(index: index, generation: record.pointee.generation) }

  @inlinable
  var isAlive: Bool { record.pointee.isAlive }

  @inlinable
  var state: UnsafeMutablePointer<M.State> { block.assumingMemoryBound(to: M.State.self) }

  @inlinable
  var extra: UnsafeMutablePointer<M.Extra> {
    (block + TypedMachine.extraOffset).assumingMemoryBound(to: M.Extra.self)
  }

  /// The block's slot for the machine's only queued input, when that input is small,
  /// untagged and no effect's delivery (`append`): while it is there
  /// (`MachineRecord.inputInBlock`), queuing and dispatching it take no pool cell.
  @inlinable
  var inlineInput: UnsafeMutablePointer<M.Input> {
    (block + TypedMachine.inputOffset).assumingMemoryBound(to: M.Input.self)
  }

  /// The input cell `index` of `pool` (whose cells are `InputCell<M.Input>`: a constant
  /// stride in specialized code).
  @inlinable
  static func inputCell(_ pool: UnsafeMutablePointer<CellPool>, _ index: UInt32)
    -> UnsafeMutablePointer<InputCell<M.Input>>
  {
    pool.pointee.cell(index, as: InputCell<M.Input>.self)
  }

  @inlinable
  var effects: EffectSlots<M.Input> {
    EffectSlots(
      record: record, owner: index, block: block, pool: entry.pointee.effects,
      layout: entry.pointee.layout)
  }

  /// The side record, if one was made.
  @inlinable
  var side: UnsafeMutablePointer<MachineSide<M>>? {
    let index = record.pointee.side
    guard index != 0 else { return nil }
    return table._withUnsafeGuaranteedRef { $0.side(index) }.assumingMemoryBound(
      to: MachineSide<M>.self)
  }

  /// The side record, made now if there is none yet (not for the hot path); nil when the
  /// memory for it cannot be allocated (`Memory`).
  @usableFromInline
  func makeSide() -> UnsafeMutablePointer<MachineSide<M>>? {
    if let side { return side }
    guard let side = Memory.allocate(MachineSide<M>.self, count: 1) else { return nil }
    guard
      let index = table._withUnsafeGuaranteedRef({ $0.addSide(UnsafeMutableRawPointer(side)) })
    else {
      side.deallocate()
      return nil
    }
    side.initialize(to: MachineSide())
    record.pointee.side = index
    return side
  }

  /// Calls every observer with `event`, in the order they were added, then the observer of
  /// every machine of the kind, while the machine stays alive (an observer may remove it).
  /// Reads the list afresh for each observer, so one may add another meanwhile, or cancel
  /// one: a cancelled observer's box stays alive until the dispatch returns
  /// (`Runtime.retire`), and the observers after it move down a place, so an index whose
  /// observer changed during the call is called again, not passed.
  @inlinable
  @inline(__always)
  func notify(_ event: Event) {
    if let side, let first = side.pointee.observers.first, isAlive {
      // The first observer straight from the side record: one load fewer on every reply.
      first._withUnsafeGuaranteedRef { $0.call(event) }
      var index = side.pointee.observers.first?.toOpaque() == first.toOpaque() ? 1 : 0
      while index < side.pointee.observers.count && isAlive {
        let observer = side.pointee.observers.storage.unsafelyUnwrapped[index]
        observer._withUnsafeGuaranteedRef { $0.call(event) }
        if index < side.pointee.observers.count
          && side.pointee.observers.storage.unsafelyUnwrapped[index].toOpaque()
            == observer.toOpaque()
        {
          index &+= 1
        }
      }
    }
    if let observer = entry.pointee.observer, isAlive {
      Unmanaged<ObserverBox<KindEvent>>.fromOpaque(observer)._withUnsafeGuaranteedRef {
        $0.call((id, event))
      }
    }
  }

  // MARK: Life

  /// Fills slot `index`'s record and a new block for a machine in `state` that may queue
  /// `inputCapacity` inputs.
  @inlinable
  static func spawn(
    runtime: Runtime, index: UInt32, kind kindIndex: UInt16, state: M.State, extra: M.Extra,
    inputCapacity: Int
  ) {
    let entry = runtime.table.kinds + Int(kindIndex)
    let layout = entry.pointee.layout
    precondition(
      layout.pointee.inputOffset == inputOffset && layout.pointee.extraOffset == extraOffset,
      "the block layout and the typed offsets disagree")
    let record = runtime.table.records + Int(index)
    let block = entry.pointee.kind._withUnsafeGuaranteedRef { $0.blocks.take() }
    block.bindMemory(to: M.State.self, capacity: 1).initialize(to: state)
    (block + layout.pointee.extraOffset).bindMemory(to: M.Extra.self, capacity: 1).initialize(
      to: extra)
    (block + layout.pointee.listsOffset).bindMemory(
      to: SlotList.self, capacity: 2 * layout.pointee.listCount)
    let generation = record.pointee.generation
    record.initialize(to: MachineRecord())
    record.pointee.generation = generation
    record.pointee.block = block
    record.pointee.kind = kindIndex
    record.pointee.inputCapacity = UInt16(truncatingIfNeeded: inputCapacity)
    record.pointee.isAlive = true
    EffectSlots<M.Input>(
      record: record, owner: index, block: block, pool: entry.pointee.effects, layout: layout
    ).initialize()
  }

  /// Does `operation`; false only for an observer to remove that the machine does not have.
  @inlinable
  func perform(_ operation: CellOperation) -> Bool {
    switch operation {
    case .fire(let slot, let generation, let disarmed):
      fire(slot: slot, generation: generation, disarmed: disarmed)
    case .complete(let job): complete(job)
    case .terminate: terminate()
    case .destroy: destroy()
    case .removeObserver(let token): return removeObserver(token: token)
    }
    return true
  }

  /// Removes the observer of registration `token`, retiring its box (`Runtime.retire`);
  /// false when the machine has no such observer.
  @usableFromInline
  func removeObserver(token: UInt64) -> Bool {
    guard let removed = side?.pointee.observers.remove(token: token) else { return false }
    withRuntime { $0.retire(removed) }
    return true
  }

  // MARK: Inputs

  /// Appends an input to the machine's queue; false when the machine has `inputCapacity`
  /// inputs queued or the pool has no cell for it. Into an empty queue, a small input
  /// without tag or token goes to the block (`inlineInput`); every other input takes a cell
  /// of the kind's input pool, and so does the one in the block when another joins it (the
  /// block holds an input only while it is the only one queued).
  @inlinable
  @inline(__always)
  func append(_ input: M.Input, tag: PostTag, token: UInt64) -> Bool {
    // Into an empty queue: the limit is at least one.
    if TypedMachine.hasInlineSlot && record.pointee.inputCount == 0 && tag.rawValue == 0
      && token == 0
    {
      inlineInput.initialize(to: input)
      record.pointee.inputTail = MachineRecord.inputInBlock
      record.pointee.inputCount = 1
      return true
    }
    return appendCell(input, tag: tag, token: token)
  }

  /// `append` into a cell.
  @inlinable
  func appendCell(_ input: M.Input, tag: PostTag, token: UInt64) -> Bool {
    let count = record.pointee.inputCount
    guard count < record.pointee.inputCapacity else { return false }
    let pool = inputPool
    guard let cell = pool.pointee.take(as: InputCell<M.Input>.self) else { return false }
    var tail = record.pointee.inputTail
    if TypedMachine.hasInlineSlot && tail == MachineRecord.inputInBlock {
      guard let first = TypedMachine.moveInlineInput(from: inlineInput, to: pool) else {
        pool.pointee.give(cell, as: InputCell<M.Input>.self)
        return false
      }
      tail = first
    }
    let pointer = UnsafeMutableRawPointer(TypedMachine.inputCell(pool, cell)).bindMemory(
      to: InputCell<M.Input>.self, capacity: 1)
    let queued = QueuedInput(input: input, tag: tag, token: token)
    // The newest cell links to the oldest: itself when no cell was queued.
    if tail == CellPool.none {
      pointer.initialize(to: InputCell(queued, next: cell))
    } else {
      let tail = TypedMachine.inputCell(pool, tail)
      pointer.initialize(to: InputCell(queued, next: tail.pointee.next))
      tail.pointee.next = cell
    }
    record.pointee.inputTail = cell
    record.pointee.inputCount = count &+ 1
    return true
  }

  /// Moves the input waiting in the block at `slot` into a cell of `pool`, linked to itself
  /// (the queue's only cell); answers the cell, or nil (the input stays) when the pool has
  /// none. Out of line: the input path's common case does not pay for it.
  @inlinable
  @inline(never)
  static func moveInlineInput(
    from slot: UnsafeMutablePointer<M.Input>, to pool: UnsafeMutablePointer<CellPool>
  ) -> UInt32? {
    guard let cell = pool.pointee.take(as: InputCell<M.Input>.self) else { return nil }
    UnsafeMutableRawPointer(inputCell(pool, cell)).bindMemory(
      to: InputCell<M.Input>.self, capacity: 1
    ).initialize(to: InputCell(QueuedInput(input: slot.move(), tag: .none, token: 0), next: cell))
    return cell
  }

  /// Takes the oldest queued input (from the block or a cell, which goes back to the pool),
  /// or nil.
  @inlinable
  func popFirst() -> QueuedInput<M.Input>? {
    if let input = popInline() { return QueuedInput(input: input, tag: .none, token: 0) }
    return popCell()
  }

  /// Takes the input waiting in the block, if one does (it is then the only one queued).
  @inlinable
  @inline(__always)
  func popInline() -> M.Input? {
    guard TypedMachine.hasInlineSlot && record.pointee.inputTail == MachineRecord.inputInBlock
    else { return nil }
    record.pointee.inputTail = CellPool.none
    record.pointee.inputCount = 0
    return inlineInput.move()
  }

  /// Takes the oldest input queued in a cell, giving the cell back to the pool, or nil; call
  /// it when no input waits in the block (`popInline`).
  @inlinable
  func popCell() -> QueuedInput<M.Input>? {
    let last = record.pointee.inputTail
    guard last != CellPool.none else { return nil }
    let pool = inputPool
    let tail = TypedMachine.inputCell(pool, last)
    let head = tail.pointee.next
    let cell = TypedMachine.inputCell(pool, head).move()
    if head == last {
      record.pointee.inputTail = CellPool.none
    } else {
      tail.pointee.next = cell.next
    }
    pool.pointee.give(head, as: InputCell<M.Input>.self)
    record.pointee.inputCount &-= 1
    return cell.queued
  }

  /// Queues an input from outside the runtime, to a machine known to be alive.
  @inlinable
  func post(_ input: M.Input, tag: PostTag) -> PostResult {
    // The view came from a live id (`MachineHandle.machine`): a removed machine's slot has
    // another generation, so this machine is alive.
    guard append(input, tag: tag, token: 0) else {
      record.pointee.dropped &+= 1
      return .queueFull
    }
    noteQueued()
    return .accepted
  }

  /// Queues an input produced inside the runtime; a full queue is counted and reported.
  @inlinable
  @discardableResult
  func enqueue(_ input: M.Input, token: UInt64, source: InputSource) -> Bool {
    guard isAlive else { return false }
    guard append(input, tag: .none, token: token) else {
      record.pointee.dropped &+= 1
      let id = self.id
      withRuntime { $0.report(.inputQueueFull(id, source)) }
      return false
    }
    noteQueued()
    return true
  }

  @inlinable
  func noteQueued() {
    record.pointee.posted &+= 1
    if record.pointee.inputCount > record.pointee.queueHighWater {
      record.pointee.queueHighWater = record.pointee.inputCount
    }
    if !record.pointee.isScheduled {
      table._withUnsafeGuaranteedRef { $0.schedule(index, record) }
    }
  }

  // MARK: Dispatch

  /// Takes turns of this machine (marked running by `MachineTable.takeReady`), one queued
  /// input each, while it has inputs, no other machine is ready and the running dispatch has
  /// turns left (`MachineTable.turnsLeft`, counted down here, at least one taken). Inputs
  /// queued to it meanwhile (its own `send`, an observer's post) do not schedule it: when it
  /// yields with inputs left it goes to the back of the ready list, behind every machine
  /// scheduled during its turns, and otherwise it is left unscheduled. Taking the next turn
  /// at once when no other machine is ready is what the ready list would do, minus the trip
  /// through it. Inlined with `resolve` into the kind's `dispatch` closure: the input path
  /// is one call.
  @inlinable
  @inline(__always)
  func dispatch(in table: MachineTable) {
    while true {
      // Counted before the input is resolved, as `statistics.dispatched` shows it to the
      // observers of its reply.
      table.turnsLeft &-= 1
      resolveNext()
      // A machine removed during its turn has no inputs left (`terminate`).
      guard record.pointee.inputCount > 0 else {
        record.pointee.next = MachineRecord.none
        return
      }
      if table.turnsLeft == 0 || table.hasReady {
        table.schedule(index, record)
        return
      }
    }
  }

  /// Resolves the next queued input whose effect (if any) was not cancelled meanwhile; when
  /// every one left was, the turn resolves none and is not counted as dispatched.
  @inlinable
  @inline(__always)
  func resolveNext() {
    if let input = popInline() {
      resolve(input, tag: .none)
      return
    }
    while let queued = popCell() {
      if queued.token != 0 && !TypedMachine.claimDelivery(queued.token, of: index, in: table) {
        withRuntime { $0.counters.discarded &+= 1 }
        continue
      }
      resolve(queued.input, tag: queued.tag)
      return
    }
    withRuntime { $0.counters.dispatched &-= 1 }
  }

  /// `claimDelivery(_:)` of the machine in slot `index`, out of line with its arguments in
  /// registers: the input path then keeps its view of the machine in registers too (a call
  /// that takes the view makes the caller write it to memory first, on every input).
  @inlinable
  @inline(never)
  static func claimDelivery(
    _ token: UInt64, of index: UInt32, in table: Unmanaged<MachineTable>
  ) -> Bool {
    table._withUnsafeGuaranteedRef { TypedMachine(table: $0, index: index) }.claimDelivery(token)
  }

  /// Checks that the effect behind a delivery is still live and, for the last delivery of a
  /// finished effect, frees its slot (which may start an effect waiting on its queue).
  @inlinable
  func claimDelivery(_ token: UInt64) -> Bool {
    let slot = UInt32(truncatingIfNeeded: token >> 32)
    let effects = self.effects
    guard effects.isLive(slot: slot, generation: UInt32(truncatingIfNeeded: token)) else {
      return false
    }
    let entry = effects.slot(slot)
    if entry.pointee.kind != .every {
      entry.pointee.pending -= 1
      if entry.pointee.pending == 0 && entry.pointee.phase == .finishing {
        finish(slot)
      }
    }
    return true
  }

  @inlinable
  @inline(__always)
  func resolve(_ input: M.Input, tag: PostTag) {
    let (storage, lastIndex) = withRuntime { runtime in
      (
        runtime.scratch.bindMemory(
          to: Effect<M.Input, M.Output>.self,
          capacity: Int(truncatingIfNeeded: runtime.lastEffectIndex) &+ 1),
        runtime.lastEffectIndex
      )
    }
    var recorded = Effects<M>(storage: storage, lastIndex: lastIndex)
    let from = state.pointee
    let resolution = M.resolve(
      input, state: &state.pointee, extra: extra.pointee, effects: &recorded)
    if recorded.overflow > 0 {
      let (id, dropped) = (self.id, recorded.overflow)
      withRuntime { runtime in
        runtime.counters.effectsOverflowed &+= UInt64(dropped)
        runtime.report(.effectBufferFull(id, dropped: dropped))
      }
    }
    switch resolution {
    case .handled:
      record.pointee.handled &+= 1
      notify(TypedMachine.reply(.success(input, from: from, to: state.pointee), tag: tag))
      var index = 0
      while index < recorded.count {
        let effect = (storage + index).move()
        index += 1
        guard isAlive else { continue }
        apply(effect)
      }
    case .rejected:
      state.pointee = from
      recorded.discardAll()
      record.pointee.rejected &+= 1
      notify(TypedMachine.reply(.failure(input, state: from), tag: tag))
    }
  }

  // MARK: Effects

  /// The event for `reply`, built in place (inlined: fewer instructions per reply than
  /// building it out of line and copying it back).
  @inlinable
  @inline(__always)
  static func reply(_ reply: Reply<M.Input, M.State>, tag: PostTag) -> Event {
    .replied(reply, tag: tag)
  }

  /// Applies one recorded effect, consuming it (its payload moves on; nothing of it is
  /// copied and destroyed). Inlined into `resolve`: `send`, the effect of a machine that feeds
  /// itself, is on the input path, and starting or cancelling an effect pays no call.
  @inlinable
  @inline(__always)
  func apply(_ effect: consuming Effect<M.Input, M.Output>) {
    switch consume effect {
    case .send(let input):
      enqueue(input, token: 0, source: .send)
    case .emit(let output):
      deliver(output)
    case .after(let span, let input, let queue, let id):
      start(.after, span: span, input: input, job: nil, queue: queue, id: id)
    case .every(let span, let input, let queue, let id):
      start(.every, span: span, input: input, job: nil, queue: queue, id: id)
    case .run(let job, let queue, let id):
      start(.job, span: .zero, input: nil, job: job, queue: queue, id: id)
    case .cancel(let id):
      cancel(id)
    }
  }

  /// Sends an output through the redirect, or to observers (the machine's and its type's,
  /// `Runtime.observeAll`) and outward routes.
  @inlinable
  func deliver(_ output: M.Output) {
    guard let side else {
      // No redirect or route: only the type's observer, if any, sees it.
      notify(.emitted(output))
      return
    }
    if let redirect = side.pointee.redirect, case .back(let input) = redirect(output) {
      enqueue(input, token: 0, source: .route)
      return
    }
    notify(.emitted(output))
    var index = 0
    while index < side.pointee.routes.count && isAlive {
      side.pointee.routes[index](output)
      index &+= 1
    }
  }

  /// Starts an in-flight effect on its queue, applying the queue's policy.
  @inlinable
  func start(
    _ effectKind: EffectKind, span: TimeSpan, input: M.Input?, job: Job<M.Input>?,
    queue: EffectQueue, id effectID: EffectID
  ) {
    let effects = self.effects
    let queueIndex = effects.queueIndex(queue)
    var waits = false
    if let running = effects.list(queueIndex, waiting: false),
      Int(running.pointee.count) >= layout.pointee.queues[queueIndex].limit
    {
      switch layout.pointee.queues[queueIndex].policy {
      case .merge:
        break
      case .latest:
        cancelSlot(running.pointee.head)
      case .oldest(_, .discardNew):
        withRuntime { $0.counters.discarded &+= 1 }
        return
      case .oldest(_, .suspendNew):
        waits = true
      }
    }
    guard let index = effects.allocate() else {
      overflow(.effectSlotsFull(id))
      return
    }
    let slot = effects.slot(index)
    slot.pointee.kind = effectKind
    slot.pointee.queue = UInt8(truncatingIfNeeded: queueIndex)
    slot.pointee.id = effectID
    slot.pointee.span = span
    slot.pointee.input = input
    // A new slot holds no job: only a `run` effect's is stored (storing nil over nil still
    // releases the old value).
    if job != nil { slot.pointee.job = job }
    slot.pointee.phase = waits ? .waiting : .running
    effects.append(index, toWaiting: waits, of: queueIndex)
    if !waits { launch(index) }
  }

  /// Arms the timer or submits the job of a running slot.
  @inlinable
  func launch(_ index: UInt32) {
    let effects = self.effects
    let slot = effects.slot(index)
    withRuntime { $0.counters.effectsStarted &+= 1 }
    switch slot.pointee.kind {
    case .after, .every:
      let span = slot.pointee.span
      let period: UInt64 =
        slot.pointee.kind == .every ? UInt64(span.nanoseconds > 0 ? span.nanoseconds : 1) : 0
      let (id, generation) = (self.id, slot.pointee.generation)
      guard
        let timer = withRuntime({ runtime in
          runtime.armTimer(
            deadline: runtime.currentTime.advanced(by: span).nanoseconds, period: period,
            owner: id, slot: index, slotGeneration: generation)
        })
      else {
        let queue = Int(slot.pointee.queue)
        effects.unlink(index, fromWaiting: false, of: queue)
        effects.release(index)
        overflow(.timersFull(id))
        promote(queue)
        return
      }
      slot.pointee.timer = timer
    case .job:
      guard let job = slot.pointee.job else { return }
      let pending = TypedPendingJob(
        job: job, machine: id, slot: index, generation: slot.pointee.generation)
      withRuntime { $0.submit(pending) }
    }
  }

  @inlinable
  func overflow(_ diagnostic: Diagnostic) {
    withRuntime { runtime in
      runtime.counters.effectsOverflowed &+= 1
      runtime.report(diagnostic)
    }
  }

  /// A timer of this machine fired.
  @inlinable
  func fire(slot index: UInt32, generation: UInt32, disarmed: Bool) {
    let effects = self.effects
    guard effects.isLive(slot: index, generation: generation) else { return }
    let slot = effects.slot(index)
    if disarmed { slot.pointee.timer = TimerHeap.none }
    guard slot.pointee.phase == .running, let input = slot.pointee.input else { return }
    let token = UInt64(index) << 32 | UInt64(generation)
    if slot.pointee.kind == .every {
      enqueue(input, token: token, source: .timer)
      return
    }
    slot.pointee.phase = .finishing
    if enqueue(input, token: token, source: .timer) {
      slot.pointee.pending += 1
    } else {
      finish(index)
    }
  }

  /// A job of this machine came back; its results are queued unless it was cancelled.
  @inlinable
  func complete(_ pending: PendingJob) {
    let effects = self.effects
    guard effects.isLive(slot: pending.slot, generation: pending.generation) else { return }
    let slot = effects.slot(pending.slot)
    guard slot.pointee.phase == .running, slot.pointee.kind == .job else { return }
    let job = unsafeDowncast(pending, to: TypedPendingJob<M.Input>.self)
    slot.pointee.phase = .finishing
    slot.pointee.job = nil
    let token = UInt64(pending.slot) << 32 | UInt64(pending.generation)
    for result in job.results where enqueue(result, token: token, source: .job) {
      slot.pointee.pending += 1
    }
    job.results = []
    if slot.pointee.pending == 0 { finish(pending.slot) }
  }

  /// Frees the slot of an effect that completed, and starts whatever waited for its place.
  @inlinable
  func finish(_ index: UInt32) {
    let effects = self.effects
    let queue = Int(effects.slot(index).pointee.queue)
    effects.unlink(index, fromWaiting: false, of: queue)
    effects.release(index)
    promote(queue)
  }

  /// Cancels one effect, running or waiting. The caller starts waiting effects afterwards.
  @inlinable
  func cancelSlot(_ index: UInt32) {
    let effects = self.effects
    let slot = effects.slot(index)
    let timer = slot.pointee.timer
    if timer != TimerHeap.none { withRuntime { $0.disarmTimer(timer) } }
    effects.unlink(index, fromWaiting: slot.pointee.phase == .waiting, of: Int(slot.pointee.queue))
    effects.release(index)
    withRuntime { $0.counters.effectsCancelled &+= 1 }
  }

  /// Cancels every effect with `effectID`, then starts effects that now fit on their queues.
  @inlinable
  func cancel(_ effectID: EffectID) {
    let effects = self.effects
    guard effectID != .none, effects.inFlight > 0 else { return }
    // The queues that lost an effect, one bit each (queues from 63 on share the last bit):
    // only those can have room for a waiting effect now.
    var touched: UInt64 = 0
    var index = record.pointee.effectHead
    while index != CellPool.none {
      let slot = effects.slot(index)
      let next = slot.pointee.link
      if slot.pointee.id == effectID {
        touched |= TypedMachine.queueBit(Int(slot.pointee.queue))
        cancelSlot(index)
      }
      index = next
    }
    guard touched != 0 else { return }
    for queue in 0..<layout.pointee.queueCount where touched & TypedMachine.queueBit(queue) != 0 {
      promote(queue)
    }
  }

  /// The bit of `queue` in `cancel`'s set of touched queues.
  @inlinable
  static func queueBit(_ queue: Int) -> UInt64 {
    1 << UInt64(queue < 63 ? queue : 63)
  }

  /// Starts waiting effects while their queue has room (`merge` queues never have waiting
  /// effects).
  @inlinable
  func promote(_ queue: Int) {
    let effects = self.effects
    guard let running = effects.list(queue, waiting: false),
      let waiting = effects.list(queue, waiting: true)
    else { return }
    while Int(running.pointee.count) < layout.pointee.queues[queue].limit {
      let head = waiting.pointee.head
      guard head != CellPool.none else { return }
      effects.unlink(head, fromWaiting: true, of: queue)
      effects.slot(head).pointee.phase = .running
      effects.append(head, toWaiting: false, of: queue)
      launch(head)
    }
  }

  // MARK: Removal

  /// Cancels every effect and timer and drops queued inputs, giving their cells back to the
  /// pools; observers see nothing more. The block and side record stay until `destroy` (the
  /// machine may be mid-dispatch).
  @inlinable
  func terminate() {
    guard isAlive else { return }
    record.pointee.isAlive = false
    table._withUnsafeGuaranteedRef { $0.retire(index) }
    let effects = self.effects
    while case let index = record.pointee.effectHead, index != CellPool.none {
      let timer = effects.slot(index).pointee.timer
      withRuntime { runtime in
        if timer != TimerHeap.none { runtime.disarmTimer(timer) }
        runtime.counters.effectsCancelled &+= 1
      }
      effects.release(index)
    }
    while popFirst() != nil {}
  }

  /// Frees the block and the side record of a terminated machine.
  @usableFromInline
  func destroy() {
    while popFirst() != nil {}
    effects.deinitialize()
    state.deinitialize(count: 1)
    extra.deinitialize(count: 1)
    let kind = Int(record.pointee.kind)
    withRuntime { $0.table.kinds[kind].kind.takeUnretainedValue().blocks.give(block) }
    record.pointee.block = nil
    if let side {
      let index = record.pointee.side
      record.pointee.side = 0
      table._withUnsafeGuaranteedRef { $0.removeSide(index) }
      side.pointee.observers.removeAll()
      side.deinitialize(count: 1)
      side.deallocate()
    }
  }

  /// A snapshot of the statistics, with the current queue depth.
  @inlinable
  var statistics: MachineStatistics {
    MachineStatistics(record.pointee)
  }
}
