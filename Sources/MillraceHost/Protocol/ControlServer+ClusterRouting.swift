import MillraceWire

/// How a cluster node routes requests (docs/cluster.md): by the slots of the machine names a
/// request holds, where its command's key positions say (the same positions `COMMAND`
/// reports, which cluster clients route by).
extension ControlServer {
  /// The route of `frame`, whose machine names are at `keys`; nil when it names none.
  /// `asking` says `ASKING` came just before (or the command implies it).
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
    return openSlotRoute(route, map: map, asking: asking) { presence(in: frame, keys) }
  }

  /// How many of the machines `frame` names at `keys` are here, of how many.
  private func presence(in frame: Frame, _ keys: KeyPositions) -> (present: Int, total: Int) {
    keys.positions(wordCount: frame.count).reduce(into: (0, 0)) { count, position in
      count.total += 1
      if frame.withUnsafeBytes(of: position, host.directory.slot(ofUTF8:)) != nil {
        count.present += 1
      }
    }
  }

  /// Where a request goes while its slot moves, as Redis decides (`getNodeByQuery`), given the
  /// route by owner alone and, counted only when the slot is open, how many of the machines
  /// it names are here:
  /// - on the node the slot migrates from, a request whose machines are all here is served,
  ///   one with none of them here goes to the node importing it (`-ASK`: moved, or never
  ///   spawned), one with some of each gets `-TRYAGAIN`;
  /// - the importing node serves the slot's requests after `ASKING` (`-TRYAGAIN` for several
  ///   machines not all here) and redirects the others to the owner (`-MOVED`).
  private func openSlotRoute(
    _ route: SlotRoute, map: ClusterMap, asking: Bool,
    _ count: () -> (present: Int, total: Int)
  ) -> SlotRoute {
    switch route {
    case .here(let slot):
      guard let target = map.migrating[slot] else { return route }
      let (present, total) = count()
      if present == total { return route }
      return present == 0 ? .ask(slot: slot, to: map.nodes[target]) : .tryAgain
    case .moved(let slot, _):
      guard asking && map.importing[slot] != nil else { return route }
      let (present, total) = count()
      return total > 1 && present < total ? .tryAgain : .here(slot: slot)
    case .crossSlot, .unassigned, .ask, .tryAgain:
      return route
    }
  }

  /// The refusal of an `EXEC` whose queued requests name machines in `transaction.slots`,
  /// routed as one request naming all their machines (`route`): nil when it may run here. A
  /// transaction runs whole on one node or not at all.
  func refusal(ofExec transaction: Session.Transaction, in cluster: Cluster, asking: Bool)
    -> ReplyError?
  {
    let map = cluster.map
    guard var route = map.route(slots: transaction.slots) else { return nil }
    if map.hasOpenSlots {
      route = openSlotRoute(route, map: map, asking: asking) {
        transaction.requests.reduce(into: (present: 0, total: 0)) { count, request in
          guard let keys = table.keys(of: request) else { return }
          let (present, total) = presence(in: request, keys)
          count = (count.present + present, count.total + total)
        }
      }
    }
    return ReplyError(refusing: route)
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
