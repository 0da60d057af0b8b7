/// Dispatch: a machine's steps, each resolving one queued input and applying its effects.
extension _TypedMachine {
  /// Takes steps of this machine (marked running by `_MachineRegistry.takeReady`), one queued
  /// input each, while it has inputs, no other machine is ready and the running dispatch has
  /// steps left (`_MachineRegistry.stepsLeft`, counted down here, at least one taken). Inputs
  /// queued to it meanwhile (its own `send`, an observer's post) do not schedule it: when it
  /// yields with inputs left it goes to the back of the ready list, behind every machine
  /// scheduled during its steps, and otherwise it is left unscheduled. Taking the next step
  /// at once when no other machine is ready is what the ready list would do, minus the trip
  /// through it. Inlined with `resolve` into the variant's `dispatch` closure: the input path
  /// is one call.
  @inlinable
  @inline(__always)
  func dispatch(in registry: _MachineRegistry) {
    while true {
      // Counted before the input is resolved, as `statistics.dispatched` shows it to the
      // observers of its reply.
      registry.stepsLeft &-= 1
      resolveNext()
      // A machine removed during its step has no inputs left (`terminate`).
      guard record.pointee.inputCount > 0 else {
        record.pointee.next = _MachineRecord.none
        return
      }
      if registry.stepsLeft == 0 || registry.hasReady {
        registry.schedule(index, record)
        return
      }
    }
  }

  /// Resolves the next queued input whose effect (if any) was not cancelled meanwhile; when
  /// every one left was, the step resolves none and is not counted as dispatched.
  @inlinable
  @inline(__always)
  func resolveNext() {
    if let input = popInline() {
      resolve(input, tag: .none)
      return
    }
    while let queued = popCell() {
      if queued.token != 0 && !_TypedMachine.claimDelivery(queued.token, of: index, in: registry) {
        withRuntime { $0._counters.discarded &+= 1 }
        continue
      }
      resolve(queued.input, tag: queued.tag)
      return
    }
    withRuntime { $0._counters.dispatched &-= 1 }
  }

  /// `claimDelivery(_:)` of the machine in slot `index`, out of line with its arguments in
  /// registers: the input path then keeps its view of the machine in registers too (a call
  /// that takes the view makes the caller write it to memory first, on every input).
  @inlinable
  @inline(never)
  static func claimDelivery(
    _ token: UInt64, of index: UInt32, in registry: Unmanaged<_MachineRegistry>
  ) -> Bool {
    registry._withUnsafeGuaranteedRef { _TypedMachine(registry: $0, index: index) }.claimDelivery(
      token)
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
        runtime._scratch.bindMemory(
          to: Effect<M.Input, M.Output>.self,
          capacity: Int(truncatingIfNeeded: runtime._lastEffectIndex) &+ 1),
        runtime._lastEffectIndex
      )
    }
    var recorded = Effects<M>(storage: storage, lastIndex: lastIndex)
    let from = state.pointee
    let resolution = M.resolve(
      input, state: &state.pointee, extra: extra.pointee, effects: &recorded)
    if recorded.overflow > 0 {
      let (id, dropped) = (self.id, recorded.overflow)
      withRuntime { runtime in
        runtime._counters.effectsOverflowed &+= UInt64(dropped)
        runtime._report(.effectBufferFull(id, dropped: dropped))
      }
    }
    switch resolution {
    case .handled:
      record.pointee.handled &+= 1
      notify(_TypedMachine.reply(.handled(input, from: from, to: state.pointee), tag: tag))
      var index = 0
      while index < recorded.count {
        let effect = (storage + index).move()
        index += 1
        guard isAlive else { continue }
        apply(effect)
      }
    case .rejected:
      state.pointee = from
      recorded._discardAll()
      record.pointee.rejected &+= 1
      notify(_TypedMachine.reply(.rejected(input, state: from), tag: tag))
    }
  }

  /// The event for `reply`, built in place (inlined: fewer instructions per reply than
  /// building it out of line and copying it back).
  @inlinable
  @inline(__always)
  static func reply(_ reply: Reply<M.Input, M.State>, tag: PostTag) -> Event {
    .replied(reply, tag: tag)
  }
}
