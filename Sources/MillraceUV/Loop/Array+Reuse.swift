extension Array {
  /// Empties the array and keeps its storage, cheaply for the short arrays one request or one
  /// turn uses: nothing to do when empty, `removeLast()` for one element, and
  /// `removeAll(keepingCapacity: true)` (which goes through the generic `replaceSubrange`
  /// even for an empty array) otherwise.
  @inlinable
  package mutating func removeAllKeepingCapacity() {
    switch count {
    case 0: break
    case 1: removeLast()
    default: removeAll(keepingCapacity: true)
    }
  }

  /// Empties the array, keeping its storage unless it grew past `limit` elements (a burst):
  /// then the storage is released, so the memory comes back afterwards.
  @inlinable
  package mutating func removeAll(keepingCapacityUpTo limit: Int) {
    if capacity > limit {
      self = []
    } else {
      removeAllKeepingCapacity()
    }
  }
}
