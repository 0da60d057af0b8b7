/// Inputs: a machine's queue of inputs, in its block or in cells of the runtime's input pool.
extension _TypedMachine {
  /// Appends an input to the machine's queue; false when the machine has `inputCapacity`
  /// inputs queued or the pool has no cell for it. Into an empty queue, a small input
  /// without tag or token goes to the block (`inlineInput`); every other input takes a cell
  /// of the variant's input pool, and so does the one in the block when another joins it (the
  /// block holds an input only while it is the only one queued).
  @inlinable
  @inline(__always)
  func append(_ input: M.Input, tag: PostTag, token: UInt64) -> Bool {
    // Into an empty queue: the limit is at least one.
    if _TypedMachine.hasInlineSlot && record.pointee.inputCount == 0 && tag.rawValue == 0
      && token == 0
    {
      inlineInput.initialize(to: input)
      record.pointee.inputTail = _MachineRecord.inputInBlock
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
    guard let cell = pool.pointee.take(as: _InputCell<M.Input>.self) else { return false }
    var tail = record.pointee.inputTail
    if _TypedMachine.hasInlineSlot && tail == _MachineRecord.inputInBlock {
      guard let first = _TypedMachine.moveInlineInput(from: inlineInput, to: pool) else {
        pool.pointee.give(cell, as: _InputCell<M.Input>.self)
        return false
      }
      tail = first
    }
    let pointer = UnsafeMutableRawPointer(_TypedMachine.inputCell(pool, cell)).bindMemory(
      to: _InputCell<M.Input>.self, capacity: 1)
    let queued = _QueuedInput(input: input, tag: tag, token: token)
    // The newest cell links to the oldest: itself when no cell was queued.
    if tail == _CellPool.none {
      pointer.initialize(to: _InputCell(queued, next: cell))
    } else {
      let tail = _TypedMachine.inputCell(pool, tail)
      pointer.initialize(to: _InputCell(queued, next: tail.pointee.next))
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
    from slot: UnsafeMutablePointer<M.Input>, to pool: UnsafeMutablePointer<_CellPool>
  ) -> UInt32? {
    guard let cell = pool.pointee.take(as: _InputCell<M.Input>.self) else { return nil }
    UnsafeMutableRawPointer(inputCell(pool, cell)).bindMemory(
      to: _InputCell<M.Input>.self, capacity: 1
    ).initialize(to: _InputCell(_QueuedInput(input: slot.move(), tag: .none, token: 0), next: cell))
    return cell
  }

  /// Takes the oldest queued input (from the block or a cell, which goes back to the pool),
  /// or nil.
  @inlinable
  func popFirst() -> _QueuedInput<M.Input>? {
    if let input = popInline() { return _QueuedInput(input: input, tag: .none, token: 0) }
    return popCell()
  }

  /// Takes the input waiting in the block, if one does (it is then the only one queued).
  @inlinable
  @inline(__always)
  func popInline() -> M.Input? {
    guard _TypedMachine.hasInlineSlot && record.pointee.inputTail == _MachineRecord.inputInBlock
    else { return nil }
    record.pointee.inputTail = _CellPool.none
    record.pointee.inputCount = 0
    return inlineInput.move()
  }

  /// Takes the oldest input queued in a cell, giving the cell back to the pool, or nil; call
  /// it when no input waits in the block (`popInline`).
  @inlinable
  func popCell() -> _QueuedInput<M.Input>? {
    let last = record.pointee.inputTail
    guard last != _CellPool.none else { return nil }
    let pool = inputPool
    let tail = _TypedMachine.inputCell(pool, last)
    let head = tail.pointee.next
    let cell = _TypedMachine.inputCell(pool, head).move()
    if head == last {
      record.pointee.inputTail = _CellPool.none
    } else {
      tail.pointee.next = cell.next
    }
    pool.pointee.give(head, as: _InputCell<M.Input>.self)
    record.pointee.inputCount &-= 1
    return cell.queued
  }

  /// Queues an input from outside the runtime, to a machine known to be alive.
  @inlinable
  func post(_ input: M.Input, tag: PostTag) -> PostResult {
    // The view came from a live id (`MachineHandle._machine`): a removed machine's slot has
    // another generation, so this machine is alive.
    guard append(input, tag: tag, token: 0) else {
      _RareCounts.countDropped(registry, index)
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
      _RareCounts.countDropped(registry, index)
      let id = self.id
      withRuntime { $0._report(.inputQueueFull(id, source)) }
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
      registry._withUnsafeGuaranteedRef { $0.schedule(index, record) }
    }
  }
}
