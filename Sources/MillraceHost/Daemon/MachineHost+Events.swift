import Millrace

/// The codecs the events of one machine type are printed with, by the host's kind slot:
/// kinds of one type (every machine file's kind is a `FileMachine`) share the type's one
/// observer, and each machine's entry says which kind, so which codec, applies.
final class EventPrinter<M: Machine> {
  /// By kind slot; nil for slots of other types (or free).
  var codecs: [TextCodec<M>?] = []

  /// Prints the events of machines in kind slot `slot` through `codec`.
  func set(_ codec: TextCodec<M>, at slot: UInt16) {
    if codecs.count <= Int(slot) {
      codecs += Array(repeating: nil, count: Int(slot) + 1 - codecs.count)
    }
    codecs[Int(slot)] = codec
  }
}

extension MachineHost {
  /// Has the events of machines of `type` in kind slot `kind` printed through `codec`; the
  /// first kind of a type starts the host's one observer of it.
  func printEvents<M: Machine>(of type: M.Type, kind: UInt16, through codec: TextCodec<M>) {
    let key = ObjectIdentifier(type)
    if let existing = printers[key] {
      unsafeDowncast(existing.printer, to: EventPrinter<M>.self).set(codec, at: kind)
      return
    }
    let printer = EventPrinter<M>()
    printer.set(codec, at: kind)
    // unowned(unsafe): no reference counting per event. The host outlives its machines (it
    // removes them all when it goes) and detaches this observer in its deinit, so no event
    // can reach a dead host.
    runtime.observeAll(type) { [unowned(unsafe) self] id, event in
      self.deliver(event, of: id, printer)
    }
    printers[key] = (
      printer,
      { [unowned runtime] in runtime.observeAll(type) { _, _ in } }
    )
  }

  /// One event of the machine `id`: marks it changed (a handled input, with a store), and
  /// prints it only when a waiting `SEND` or `onEvent` needs the text.
  @inline(__always)
  private func deliver<M: Machine>(
    _ event: MachineEvent<M.Input, M.State, M.Output>, of id: MachineID,
    _ printer: EventPrinter<M>
  ) {
    guard let entry = directory.entry(of: id) else { return }
    let tag: PostTag
    switch event {
    case .replied(let reply, let replyTag):
      tag = replyTag
      // Only a store needs to know what changed.
      if store != nil, case .success = reply { markChanged(id.index) }
    case .emitted:
      tag = .none
    }
    guard tag != .none || onEvent != nil else { return }
    let codec = printer.codecs[Int(entry.pointee.kind)].unsafelyUnwrapped
    let text: HostedEvent =
      switch event {
      case .replied(.success(let input, let from, let to), let tag):
        .succeeded(
          input: codec.formatInput(input), from: codec.formatState(from),
          to: codec.formatState(to), tag: tag)
      case .replied(.failure(let input, let state), let tag):
        .rejected(input: codec.formatInput(input), state: codec.formatState(state), tag: tag)
      case .emitted(let output):
        .emitted(codec.formatOutput(output))
      }
    handle(text, of: id.index)
  }

  /// Answers the `SEND` waiting for the event, then passes it to `onEvent`.
  private func handle(_ event: HostedEvent, of slot: UInt32) {
    if event.tag != .none, let waiter = awaiting.remove(tag: event.tag.rawValue) {
      let outcome: SendOutcome =
        switch event {
        case .succeeded(_, let from, let to, _): .moved(from: from, to: to)
        case .rejected(let input, let state, _): .rejected(input: input, state: state)
        case .emitted: .machineRemoved(directory.entry(slot).name)  // outputs carry no tag
        }
      waiter.requester.sendFinished(ticket: waiter.ticket, outcome)
    }
    // The requester may have changed things; the machine is still there (nothing a reply
    // does removes machines), but read it afresh.
    if let onEvent, directory.entry(slot).pointee.isTaken {
      onEvent(event, reference(slot))
    }
  }
}
