import CPrefetch

extension MachineHost {
  /// How many pipelined requests a connection decodes ahead for the host to warm the cache
  /// for (`prefetchSend`): `prefetchStages` once the directory holds `prefetchMachines`
  /// machines, whose lines no longer stay in the caches; none below, where it would only cost.
  var lookahead: Int { directory.count >= Self.prefetchMachines ? Self.prefetchStages : 0 }

  /// The machines from which requests are decoded ahead.
  static let prefetchMachines = 1 << 16
  /// The stages of `prefetchSend`.
  static let prefetchStages = 4

  /// One stage of warming the cache for a `SEND` to `name` that is `prefetchStages - stage`
  /// requests away, each stage reading only what the one before warmed: 0 the name's bucket,
  /// 1 its first entry, 2 that machine's record in the runtime, 3 its block. `state` carries
  /// the hash, then the slot, between the stages (0: nothing more to warm). Changes nothing a
  /// request can observe.
  func prefetchSend(to name: UnsafeRawBufferPointer, stage: Int, state: inout UInt64) {
    switch stage {
    case 0: state = directory.prefetchBucket(of: name)
    case 1: state = UInt64(directory.prefetchEntry(state))
    case 2:
      if state != 0, let record = runtime.recordAddress(ofSlot: UInt32(state &- 1)) {
        millrace_prefetch(record)
      }
    case 3:
      if state != 0, let block = runtime.blockAddress(ofSlot: UInt32(state &- 1)) {
        millrace_prefetch(block)
      }
    default: break
    }
  }
}
