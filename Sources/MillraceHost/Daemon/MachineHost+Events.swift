import Millrace

/// Events: one observer per machine type (`Runtime.observeAll`) for every machine of the
/// host, whatever its kind. Kinds of one type (every machine file's kind is a `FileMachine`)
/// share it; each machine's directory entry names its kind, whose operations print the event
/// with that kind's names.
extension MachineHost {
  /// Observes every machine of `type` (once per type; later calls do nothing).
  func observe<M: Machine>(_ type: M.Type) {
    let key = ObjectIdentifier(type)
    guard observedTypes[key] == nil else { return }
    // unowned(unsafe): no reference counting per event. The host outlives its machines (it
    // removes them all when it goes) and stops observing in its deinit, so no event can reach
    // a dead host.
    runtime.observeAll(type) { [unowned(unsafe) self] id, event in self.deliver(event, of: id) }
    observedTypes[key] = { [unowned runtime] in runtime.observeAll(type) { _, _ in } }
  }

  /// One event of the machine `id`: marks it changed (with a store: an input handled, or one
  /// refused that a timer or effect posted), answers the `SEND` it replies to, and prints it
  /// only when that `SEND` waited or `onEvent` needs the text.
  @inline(__always)
  private func deliver<Input, State, Output>(
    _ event: MachineEvent<Input, State, Output>, of id: MachineID
  ) {
    guard let entry = directory.entry(of: id) else { return }
    var answering: InPlaceSend? = nil
    let tag: PostTag
    switch event {
    case .replied(let reply, let replyTag):
      tag = replyTag
      // An untagged reply during a `send` resolved in place is its input's: the one step of
      // its dispatch.
      if replyTag == .none { answering = inPlace.take() }
      // Only a store needs to know what changed. An input refused changes nothing, unless no
      // `SEND` posted it: then a timer (or an effect) did, and the machine's timers changed
      // (an `after` fired, an `every` ticked), which its record must say.
      if store != nil {
        switch reply {
        case .handled: markChanged(id.index)
        case .rejected: if replyTag == .none && answering == nil { markChanged(id.index) }
        }
      }
    case .emitted:
      tag = .none
    }
    if let send = answering {
      guard onEvent != nil else {
        // Nobody else watches: the answer is made without the event's text.
        let outcome = withUnsafePointer(to: event) { event in
          withOperations(of: entry.pointee.kind) { $0.outcome(event) }
        }
        return send.requester.sendFinished(ticket: send.ticket, outcome)
      }
    } else if tag == .none && onEvent == nil {
      return
    }
    let text = withUnsafePointer(to: event) { event in
      withOperations(of: entry.pointee.kind) { $0.print(event) }
    }
    let waiter =
      answering.map { ($0.requester, $0.ticket) }
      ?? (tag == .none ? nil : awaiting.remove(tag: tag.rawValue).map { ($0.requester, $0.ticket) })
    handle(text, answering: waiter, of: id.index)
  }

  /// Answers the `SEND` the event replies to (nil when none waits: an input of a timer or an
  /// effect, or of a `SEND` whose machine was killed first), then passes it to `onEvent`.
  private func handle(
    _ event: HostedEvent, answering waiter: (any SendRequester, UInt64)?, of slot: UInt32
  ) {
    if let (requester, ticket) = waiter {
      let outcome: SendOutcome =
        switch event {
        case .handled(_, let from, let to, _, _): .moved(from: from, to: to)
        case .rejected(let input, let state, _): .rejected(input: input, state: state)
        case .emitted: .machineRemoved(directory.entry(slot).name)  // outputs carry no tag
        }
      requester.sendFinished(ticket: ticket, outcome)
    }
    // Nothing a reply does removes machines, but the entry is read afresh all the same.
    if let onEvent, directory.entry(slot).pointee.isTaken {
      onEvent(event, reference(slot))
    }
  }
}
