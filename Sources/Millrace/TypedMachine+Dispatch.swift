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
    registry._withUnsafeGuaranteedRef { $0.dispatched &-= 1 }
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
    let state = self.state
    let from = state.pointee
    let resolution: Resolution
    let to: M.State
    if MemoryLayout<M.State>.size <= _TypedMachine.registerStateBytes {
      // A small state is resolved in a local copy, stored only when the input is handled:
      // when the resolver is inlined, the reply is built from the values it computed. Read
      // back from memory, a state stored word by word is loaded in one wider load, which
      // waits for the stores to reach the cache instead of being forwarded from them.
      var next = from
      resolution = M.resolve(input, state: &next, extra: extra.pointee, effects: &recorded)
      if resolution == .handled { state.pointee = next }
      to = next
    } else {
      // A larger one in place, restored when the input is rejected: copying it in and out
      // costs more than the reload saves.
      resolution = M.resolve(
        input, state: &state.pointee, extra: extra.pointee, effects: &recorded)
      if resolution == .rejected { state.pointee = from }
      to = state.pointee
    }
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
      notify(_TypedMachine.handled(input, from: from, to: to, tag: tag))
      var index = 0
      while index < recorded.count {
        let effect = (storage + index).move()
        index += 1
        guard isAlive else { continue }
        apply(effect)
      }
    case .rejected:
      recorded._discardAll()
      _RareCounts.countRejected(registry, index)
      notify(_TypedMachine.rejected(input, state: from, tag: tag))
    }
  }

  /// The largest state `resolve` resolves in a local copy rather than in place: four words.
  @inlinable
  static var registerStateBytes: Int { 4 &* MemoryLayout<UInt64>.size }

  /// The event replying `.handled(input, from:, to:)`, built in place (inlined: fewer
  /// instructions per reply than building it out of line and copying it back).
  @inlinable
  @inline(__always)
  static func handled(_ input: M.Input, from: M.State, to: M.State, tag: PostTag) -> Event {
    if M._repliesAsWord {
      return _ReplyWord.event(_ReplyWord.handled(input, from: from, to: to), tag: tag)
    }
    return .replied(.handled(input, from: from, to: to), tag: tag)
  }

  /// The event replying `.rejected(input, state:)`, built as `handled(_:from:to:tag:)` builds
  /// its event.
  @inlinable
  @inline(__always)
  static func rejected(_ input: M.Input, state: M.State, tag: PostTag) -> Event {
    if M._repliesAsWord {
      return _ReplyWord.event(_ReplyWord.rejected(input, state: state), tag: tag)
    }
    return .replied(.rejected(input, state: state), tag: tag)
  }
}

/// `MachineEvent.replied` as raw memory, for machines whose inputs and states are plain values
/// of one or two bytes and whose outputs take at most 16 (`fits`): the reply in the first word
/// (the handled case's fields laid out as a tuple of the input and two states, then its case
/// byte: 0 handled, 1 rejected), the tag in the second, the event's case (0, replied) in the
/// byte after. That is the layout Swift gives these generic enums (no spare bits: an extra
/// case byte after the largest payload); `ReplyWordTests` checks it against events built the
/// ordinary way, for each shape of input and state.
///
/// Built in a register and stored as one word, the reply is forwarded to an observer's load of
/// it; written field by field, such a load waits for the fields to reach the cache
/// (`docs/performance-notes.md`).
@usableFromInline
enum _ReplyWord {
  /// Whether `M`'s replies have this layout.
  @inlinable
  @inline(__always)
  static func fits<M: Machine>(_: M.Type) -> Bool {
    fitsWord(M.Input.self) && fitsWord(M.State.self) && MemoryLayout<M.Output>.size <= 16
  }

  /// Whether values of `T` are plain bytes, one or two, without padding.
  @inlinable
  @inline(__always)
  static func fitsWord<T>(_: T.Type) -> Bool {
    _isPOD(T.self) && MemoryLayout<T>.size == MemoryLayout<T>.stride
      && (MemoryLayout<T>.size == 1 || MemoryLayout<T>.size == 2)
  }

  /// `value`'s bytes, zero-extended (`T` fits a word).
  @inlinable
  @inline(__always)
  static func bits<T>(_ value: T) -> UInt64 {
    MemoryLayout<T>.size == 1
      ? UInt64(unsafeBitCast(value, to: UInt8.self)) : UInt64(unsafeBitCast(value, to: UInt16.self))
  }

  /// The bit where the first state starts: after the input, aligned for a state.
  @inlinable
  @inline(__always)
  static func fromShift<Input, State>(_: Input.Type, _: State.Type) -> UInt64 {
    let alignment = MemoryLayout<State>.alignment
    return UInt64((MemoryLayout<Input>.size + alignment - 1) / alignment * alignment * 8)
  }

  /// `Reply.handled(input, from:, to:)`.
  @inlinable
  @inline(__always)
  static func handled<Input, State>(_ input: Input, from: State, to: State) -> UInt64 {
    let from64 = fromShift(Input.self, State.self)
    let to64 = from64 &+ UInt64(MemoryLayout<State>.stride * 8)
    return bits(input) | bits(from) &<< from64 | bits(to) &<< to64
  }

  /// `Reply.rejected(input, state:)`.
  @inlinable
  @inline(__always)
  static func rejected<Input, State>(_ input: Input, state: State) -> UInt64 {
    let from64 = fromShift(Input.self, State.self)
    let case64 = from64 &+ UInt64(MemoryLayout<State>.stride * 8 + MemoryLayout<State>.size * 8)
    return bits(input) | bits(state) &<< from64 | 1 &<< case64
  }

  /// `.replied(reply, tag: tag)`, `reply` given as its word (`fits`).
  @inlinable
  static func event<Input, State, Output>(
    _ reply: UInt64, tag: PostTag
  ) -> MachineEvent<Input, State, Output> {
    _withUnprotectedUnsafeTemporaryAllocation(
      of: MachineEvent<Input, State, Output>.self, capacity: 1
    ) {
      let event = $0.baseAddress.unsafelyUnwrapped
      let raw = UnsafeMutableRawPointer(event)
      raw.storeBytes(of: reply, as: UInt64.self)
      raw.storeBytes(of: tag.rawValue, toByteOffset: 8, as: UInt64.self)
      raw.storeBytes(of: 0, toByteOffset: 16, as: UInt8.self)
      return event.move()
    }
  }
}
