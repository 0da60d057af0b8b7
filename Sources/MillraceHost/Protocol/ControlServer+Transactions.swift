import MillraceWire

/// `MULTI`, `EXEC`, `DISCARD`: the queued commands run in one go when `EXEC` comes, with no
/// other client's request in between, each `SEND` processed before the next command, and the
/// whole reply held for the turn's commit. `WATCH` is refused (there are no versions to watch).
extension ControlServer {
  func multi(_ session: Session, _ frame: Frame) {
    guard session.transaction == nil else {
      return session.fail(.generic("MULTI calls can not be nested"))
    }
    session.transaction = Session.Transaction()
    session.reply { $0.simpleString("OK") }
  }

  func discard(_ session: Session, _ frame: Frame) {
    session.asking = false
    guard session.transaction != nil else { return session.fail(.generic("DISCARD without MULTI")) }
    session.transaction = nil
    session.reply { $0.simpleString("OK") }
  }

  func exec(_ session: Session, _ frame: Frame) {
    let asking = session.asking
    session.asking = false
    guard let transaction = session.transaction else {
      return session.fail(.generic("EXEC without MULTI"))
    }
    session.transaction = nil
    // As Redis: the queued requests' machines must all be in one slot, and it must still be
    // this node's (the map may have changed since they were queued), or one it imports after
    // ASKING, with the machines where the slot's move says; otherwise none runs.
    if let cluster, let error = refusal(ofExec: transaction, in: cluster, asking: asking) {
      return session.fail(error)
    }
    guard !transaction.refused else {
      return session.fail(
        ReplyError("EXECABORT", "Transaction discarded because of previous errors."))
    }
    let elements = ByteBuffer()
    session.execReply = (elements, 0)
    for request in transaction.requests { execute(request, for: session) }
    let count = session.execReply?.count ?? 0
    session.execReply = nil
    session.acknowledge { writer in
      writer.arrayHeader(count)
      elements.withUnsafeBytes { writer.raw($0) }
    }
  }

  func watch(_ session: Session, _ frame: Frame) {
    session.fail(
      .generic(
        "WATCH is not supported: millraced runs a transaction's commands with no other client's in between, so there is nothing to watch"
      ))
  }

  func unwatch(_ session: Session, _ frame: Frame) {
    session.reply { $0.simpleString("OK") }
  }
}
