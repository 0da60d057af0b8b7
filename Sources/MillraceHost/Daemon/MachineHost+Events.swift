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
  /// only when `onEvent` needs the text.
  @inline(__always)
  private func deliver<Input, State, Output>(
    _ event: MachineEvent<Input, State, Output>, of id: MachineID
  ) {
    guard let entry = directory.entry(of: id) else { return }
    let kind = entry.pointee.kind
    func answer(_ requester: any SendRequester, _ ticket: UInt64) {
      let outcome = withUnsafePointer(to: event) { event in
        withOperations(of: kind) { $0.outcome(event) }
      }
      requester.sendFinished(ticket: ticket, outcome)
    }
    if case .replied(let reply, let tag) = event {
      // A new step: an overflow reported from now on is not the last answered one's.
      answeredStep = nil
      if answeredWaiter != nil { answeredWaiter = nil }
      // An untagged reply during a `send` resolved in place is its input's: the one step of
      // its dispatch.
      let inPlaceSend = tag == .none ? inPlace.take() : nil
      // Only a store needs to know what changed. An input refused changes nothing, unless no
      // `SEND` posted it: then a timer (or an effect) did, and the machine's timers changed
      // (an `after` fired, an `every` ticked), which its record must say.
      if store != nil {
        switch reply {
        case .handled: markChanged(id.index)
        case .rejected: if tag == .none && inPlaceSend == nil { markChanged(id.index) }
        }
      }
      // The `SEND` it answers: none for the reply to an input of a timer or an effect, or of
      // a `SEND` whose machine was killed first (answered then). The in-place requester is
      // read where it is held, unowned: no retain.
      if let inPlaceSend {
        answer(inPlaceSend.requester, inPlaceSend.ticket)
        answeredStep = AnsweredStep(
          requester: inPlaceSend.requester, ticket: inPlaceSend.ticket, machine: id)
      } else if tag != .none, let waiter = awaiting.remove(tag: tag.rawValue) {
        answer(waiter.requester, waiter.ticket)
        answeredStep = AnsweredStep(requester: waiter.requester, ticket: waiter.ticket, machine: id)
        answeredWaiter = consume waiter
      }
    }
    guard let onEvent else { return }
    let text = withUnsafePointer(to: event) { event in
      withOperations(of: kind) { $0.print(event) }
    }
    // Nothing a reply does removes machines, but the entry is read afresh all the same.
    if directory.entry(id.index).pointee.isTaken {
      onEvent(text, reference(id.index))
    }
  }
}
