import CPrefetch

extension MachineHost {
  /// How many pipelined requests a connection decodes ahead for the host to warm the cache
  /// for (`prefetchSend`): `prefetchStages` once the directory holds `prefetchMachines`
  /// machines, whose lines no longer stay in the caches; none below, where it would only cost.
  var lookahead: Int { directory.count >= Self.prefetchMachines ? Self.prefetchStages : 0 }

  /// The machines from which requests are decoded ahead.
  static let prefetchMachines = 1 << 16
  /// The stages of `prefetchSend`: the bucket, its first entry with that slot's record, one
  /// more entry and record (where two names share the bucket), the block.
  static let prefetchStages = 4

  /// How many slots ahead of the one it writes a turn's commit warms the directory entry and
  /// the record (`prefetchSave`); the block is warmed at half the distance, from the record.
  static let saveDistance = 8

  /// Warms what saving `slots[position + saveDistance]` and `slots[position + saveDistance /
  /// 2]` will read: the entries and records of the first, the block of the second (when it is
  /// not in its record). For a
  /// commit when there are so many machines (`lookahead` > 0) that the lines a turn changed
  /// have left the caches by then. Changes nothing a request can observe.
  func prefetchSave(_ slots: [UInt32], at position: Int) {
    let far = position &+ Self.saveDistance
    if far < slots.count {
      millrace_prefetch(directory.entry(slots[far]))
      if let record = runtime.recordBytes(ofSlot: slots[far]) { Self.warm(record) }
    }
    let near = position &+ Self.saveDistance / 2
    if near < slots.count, let block = runtime.separateBlockBytes(ofSlot: slots[near]) {
      Self.warm(block)
    }
  }

  /// The first stage of warming the cache for a `SEND` to a machine a few requests away,
  /// from its name's hash (`nameHash(_:)`): the name's bucket. Returns the state the next
  /// stage (`prefetchSends(from:)`) starts from. Changes nothing a request can observe.
  func prefetchSend(toNameHash hash: UInt32) -> UInt64 {
    directory.prefetchBucket(hash: hash)
  }

  /// The hash of `name` that `prefetchSend(toNameHash:)` takes. It reads nothing but the
  /// name, so that a caller can compute it where the name's bytes are lent and nothing else
  /// runs (a call to anything else there would have them retained).
  @inline(__always)
  func nameHash(_ name: UnsafeRawBufferPointer) -> UInt32 {
    directory.hash(ofName: name)
  }

  /// A later stage of warming the cache for `SEND`s, each reading only what the one before
  /// warmed, for every state of `states` still walking: the bucket's entries one by one until
  /// the one of the name's hash (`MachineDirectory.prefetchStep`), each with its slot's
  /// record in the runtime (most names lead their bucket: their record is warm one stage
  /// sooner than if it waited for the entry to match), then the found machine's block when it
  /// is not in the record. A state carries the walk between the stages, and its end to the
  /// `SEND` (`send(utf8:arguments:to:prefetched:requester:ticket:)`). Returns whether some
  /// state still walks. Changes nothing a request can observe.
  func prefetchSends(from states: UnsafeMutableBufferPointer<UInt64>) -> Bool {
    var walking = false
    for index in states.indices where MachineDirectory.isWalking(states[index]) {
      let step = directory.prefetchStep(&states[index])
      if step.warmed != 0, let record = runtime.recordBytes(ofSlot: step.warmed &- 1) {
        Self.warm(record)
        walking = true
      }
      if step.found != 0, let block = runtime.separateBlockBytes(ofSlot: step.found &- 1) {
        Self.warm(block)
      }
    }
    return walking
  }

  /// Warms every cache line of `bytes` (a record or a block, which may span two), each once:
  /// a record is one line, and a second prefetch of a line already on its way still waits
  /// for its turn among the misses in flight.
  @inline(__always)
  static func warm(_ bytes: UnsafeRawBufferPointer) {
    guard let start = bytes.baseAddress, bytes.count > 0 else { return }
    let last = Int(bitPattern: start) &+ bytes.count &- 1
    var line = Int(bitPattern: start) & ~63
    repeat {
      millrace_prefetch(UnsafeRawPointer(bitPattern: line).unsafelyUnwrapped)
      line &+= 64
    } while line <= last
  }
}
