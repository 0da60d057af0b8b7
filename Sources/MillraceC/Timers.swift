import CMillrace

// Time events: the armed timers in a binary min-heap of effect cells by deadline and then by
// arming order (timers due at the same instant fire in the order they were armed, as the
// Swift core's), each cell knowing its place in it, so that a cancelled timer leaves in
// O(log n).

extension UnsafeMutablePointer where Pointee == _Runtime {
  /// The earliest armed timer's deadline, if any.
  var earliest: UInt64? { pointee.armed == 0 ? nil : deadline(at: 0) }

  /// The deadline of the timer at heap position `position`.
  func deadline(at position: Int) -> UInt64 {
    pointee.effects[pointee.heap[position]].pointee.deadline
  }

  /// Whether the timer at heap position `position` fires before `cell`: an earlier deadline,
  /// or the same one armed earlier.
  func precedes(_ position: Int, _ cell: UnsafeMutablePointer<_EffectCell>) -> Bool {
    let other = pointee.effects[pointee.heap[position]]
    return other.pointee.deadline != cell.pointee.deadline
      ? other.pointee.deadline < cell.pointee.deadline
      : other.pointee.sequence < cell.pointee.sequence
  }

  /// Arms `cell` at its deadline, after every timer armed before it; false when the timer
  /// table is full.
  func arm(_ cell: UInt16) -> Bool {
    guard Int(pointee.armed) < Int(pointee.counts.timers) else { return false }
    pointee.effects[cell].pointee.sequence = pointee.sequence
    pointee.sequence &+= 1
    pointee.armed &+= 1
    pointee.armedHighWater = max(pointee.armedHighWater, UInt32(pointee.armed))
    sift(cell, from: Int(pointee.armed) - 1)
    return true
  }

  /// Takes the armed `cell` out of the heap.
  func disarm(_ cell: UInt16) {
    let position = Int(pointee.effects[cell].pointee.heap)
    pointee.effects[cell].pointee.heap = _none
    pointee.armed &-= 1
    let last = Int(pointee.armed)
    if position != last { sift(pointee.heap[last], from: position) }
  }

  /// Places `cell` (its deadline and sequence set) from heap position `start`, moving it up
  /// or down to where they put it.
  func sift(_ cell: UInt16, from start: Int) {
    let key = pointee.effects[cell]
    var position = start
    while position > 0, !precedes((position - 1) / 2, key) {
      place(pointee.heap[(position - 1) / 2], at: position)
      position = (position - 1) / 2
    }
    let count = Int(pointee.armed)
    while 2 * position + 1 < count {
      var child = 2 * position + 1
      if child + 1 < count, precedes(child + 1, pointee.effects[pointee.heap[child]]) {
        child += 1
      }
      guard precedes(child, key) else { break }
      place(pointee.heap[child], at: position)
      position = child
    }
    place(cell, at: position)
  }

  /// Puts `cell` at heap position `position`.
  func place(_ cell: UInt16, at position: Int) {
    pointee.heap[position] = cell
    pointee.effects[cell].pointee.heap = UInt16(position)
  }
}
