import CMillrace

// Input queues: each machine's FIFO of cells from the runtime's input pool (a ring: the
// newest links to the oldest), and the ready list of the machines with inputs queued, which
// take turns, one input each.

extension UnsafeMutablePointer where Pointee == _Runtime {
  /// Queues `input` for the machine in `slot`, posted with `tag` or delivered by `timer`
  /// (then `tag` is the timer cell's generation), and schedules the machine; false when its
  /// queue or the input pool is full (counted as dropped).
  @inline(never)
  func enqueue(_ slot: UInt16, _ input: Int32, tag: UInt64, timer: UInt16 = _none) -> Bool {
    let machine = machine(slot)
    let capacity = pointee.queues[machine.pointee.queueHead].pointee.inputCapacity
    guard machine.pointee.inputCount < capacity, let cell = pointee.inputs.take()
    else {
      machine.pointee.dropped &+= 1
      return false
    }
    let tail = machine.pointee.inputTail
    pointee.inputs[cell].pointee = _InputCell(
      tag: tag, input: input, next: tail == _none ? cell : pointee.inputs[tail].pointee.next,
      timer: timer)
    if tail != _none { pointee.inputs[tail].pointee.next = cell }
    machine.pointee.inputTail = cell
    machine.pointee.inputCount &+= 1
    machine.pointee.posted &+= 1
    machine.pointee.queueHighWater = max(machine.pointee.queueHighWater, machine.pointee.inputCount)
    if !isScheduled(slot) { schedule(slot) }
    return true
  }

  /// Takes the oldest queued input of the machine in `slot`; the caller frees its cell.
  func popInput(_ slot: UInt16) -> UInt16? {
    let machine = machine(slot)
    let tail = machine.pointee.inputTail
    guard tail != _none else { return nil }
    let oldest = pointee.inputs[tail].pointee.next
    if oldest == tail {
      machine.pointee.inputTail = _none
    } else {
      pointee.inputs[tail].pointee.next = pointee.inputs[oldest].pointee.next
    }
    machine.pointee.inputCount &-= 1
    return oldest
  }

  /// Whether the machine in `slot` is in the ready list.
  func isScheduled(_ slot: UInt16) -> Bool {
    machine(slot).pointee.next != _none || pointee.readyTail == slot
  }

  /// Appends the machine in `slot` to the ready list.
  @inline(never)
  func schedule(_ slot: UInt16) {
    machine(slot).pointee.next = _none
    if pointee.readyTail == _none {
      pointee.readyHead = slot
    } else {
      machine(pointee.readyTail).pointee.next = slot
    }
    pointee.readyTail = slot
  }

  /// Takes the machine in `slot` out of the ready list.
  func unschedule(_ slot: UInt16) {
    var previous = _none
    var link = pointee.readyHead
    while link != slot {
      previous = link
      link = machine(link).pointee.next
    }
    let next = machine(slot).pointee.next
    if previous == _none { pointee.readyHead = next } else { machine(previous).pointee.next = next }
    if pointee.readyTail == slot { pointee.readyTail = previous }
    machine(slot).pointee.next = _none
  }

  /// Takes the first machine of the ready list, or nil when none has inputs queued.
  func takeReady() -> UInt16? {
    let slot = pointee.readyHead
    guard slot != _none else { return nil }
    unschedule(slot)
    return slot
  }
}
