import MillraceWire

/// How a cluster node routes requests (docs/cluster.md): by the slots of the machine names a
/// request holds, where its command's key positions say (the same positions `COMMAND`
/// reports, which cluster clients route by).
extension ControlServer {
  /// The route of `frame`, whose machine names are at `keys`; nil when it names none.
  /// `asking` says `ASKING` came just before (or the command implies it).
  ///
  /// While a slot moves, as Redis: on the node it migrates from, a request whose machines are
  /// all here is served, one whose machines are all elsewhere (moved, or never spawned) is
  /// sent to the importing node (`-ASK`), and one with some of each gets `-TRYAGAIN`; the
  /// importing node serves the slot's requests that follow `ASKING` and redirects the others
  /// to the owner (`-MOVED`).
  func route(_ frame: Frame, keys: KeyPositions?, in cluster: Cluster, asking: Bool)
    -> SlotRoute?
  {
    guard let keys else { return nil }
    let positions = keys.positions(wordCount: frame.count)
    let map = cluster.map
    let route = map.route(
      slots: positions.lazy.map { position in
        frame.withUnsafeBytes(of: position) { Int(HashSlot.of($0)) }
      })
    guard map.hasOpenSlots, let route else { return route }
    switch route {
    case .here(let slot):
      guard let target = map.migrating[slot] else { return route }
      let present = positions.reduce(0) { count, position in
        count
          + (frame.withUnsafeBytes(of: position) { host.directory.slot(ofUTF8: $0) } != nil ? 1 : 0)
      }
      if present == positions.underestimatedCount { return route }
      return present == 0 ? .ask(slot: slot, to: map.nodes[target]) : .tryAgain
    case .moved(let slot, _):
      return asking && map.importing[slot] != nil ? .here(slot: slot) : route
    case .crossSlot, .unassigned, .ask, .tryAgain:
      return route
    }
  }

  /// The refusal of an `EXEC` whose queued requests name machines in `transaction.slots`:
  /// their slots must be one, this node's (`-MOVED`, `-CROSSSLOT` otherwise), and while it
  /// moves, every machine they name must be here (`-TRYAGAIN`): a transaction runs whole on
  /// one node or not at all. Nil when it may run.
  func refusal(ofExec transaction: Session.Transaction, in cluster: Cluster) -> ReplyError? {
    let map = cluster.map
    guard let route = map.route(slots: transaction.slots) else { return nil }
    if case .moved(let slot, _) = route, map.importing[slot] != nil {
      return ReplyError(refusing: .tryAgain)
    }
    guard case .here(let slot) = route, map.migrating[slot] != nil else {
      return ReplyError(refusing: route)
    }
    for request in transaction.requests {
      guard let keys = table.keys(of: request) else { continue }
      for position in keys.positions(wordCount: request.count)
      where request.withUnsafeBytes(of: position, host.directory.slot(ofUTF8:)) == nil {
        return ReplyError(refusing: .tryAgain)
      }
    }
    return nil
  }

  /// The redirection of a request for `name`, which is not here: `-ASK` while its slot
  /// migrates (the machine moved away since the request was routed), nil otherwise.
  func redirection(ofMissing name: String) -> ReplyError? {
    guard let map = cluster?.map, map.hasOpenSlots else { return nil }
    let slot = Int(HashSlot.of(name))
    return map.migrating[slot].flatMap { ReplyError(refusing: .ask(slot: slot, to: map.nodes[$0])) }
  }

  /// After a change of the map: subscribers of machines in slots no longer this node's are
  /// unsubscribed from them (told as by `UNSUBSCRIBE`), as Redis drops the shard channels of a
  /// slot it loses, rather than left waiting for messages that will never come here.
  func clusterMapChanged() {
    guard let cluster else { return }
    let map = cluster.map
    unsubscribeChannels { !map.isMine(Int(HashSlot.of($0))) }
  }
}
