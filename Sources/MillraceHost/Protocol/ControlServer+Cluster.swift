import MillraceWire

/// The cluster commands, answered as Redis answers them (docs/cluster.md): `CLUSTER SLOTS`,
/// `SHARDS`, `NODES`, `INFO`, `MYID`, `KEYSLOT`, `COUNTKEYSINSLOT`, `GETKEYSINSLOT`, `SETSLOT`,
/// and `READONLY`, `READWRITE`, `ASKING`. A daemon that is not a cluster node refuses them all
/// as Redis without cluster support does (`ERR This instance has cluster support disabled`).
extension ControlServer {
  /// This node's cluster; nil once the refusal was replied.
  private func clusterNode(_ session: Session) -> Cluster? {
    guard let cluster else {
      session.fail(.clusterDisabled)
      return nil
    }
    return cluster
  }

  /// `CLUSTER SLOTS`: each run of slots with one owner, `[first, last, [host, port, id, {}]]`.
  func clusterSlots(_ session: Session, _ frame: Frame) {
    guard let map = clusterNode(session)?.map else { return }
    let ranges = map.ranges
    session.reply { writer in
      writer.arrayHeader(ranges.count)
      for (slots, owner) in ranges {
        let node = map.nodes[owner]
        writer.arrayHeader(3)
        writer.integer(slots.lowerBound)
        writer.integer(slots.upperBound)
        writer.arrayHeader(4)
        writer.bulkString(node.host)
        writer.integer(node.port)
        writer.bulkString(node.id)
        writer.mapHeader(0)
      }
    }
  }

  /// `CLUSTER SHARDS`: one shard per node, its slots as `[first, last, ...]` and itself as
  /// its one node (a primary without replicas).
  func clusterShards(_ session: Session, _ frame: Frame) {
    guard let map = clusterNode(session)?.map else { return }
    let ranges = Self.rangesByNode(map)
    session.reply { writer in
      writer.arrayHeader(map.nodes.count)
      for (index, node) in map.nodes.enumerated() {
        writer.mapHeader(2)
        writer.bulkString("slots")
        writer.arrayHeader(ranges[index].count * 2)
        for range in ranges[index] {
          writer.integer(range.lowerBound)
          writer.integer(range.upperBound)
        }
        writer.bulkString("nodes")
        writer.arrayHeader(1)
        writer.mapHeader(7)
        writer.bulkString("id")
        writer.bulkString(node.id)
        writer.bulkString("port")
        writer.integer(node.port)
        writer.bulkString("ip")
        writer.bulkString(node.host)
        writer.bulkString("endpoint")
        writer.bulkString(node.host)
        writer.bulkString("role")
        writer.bulkString("master")
        writer.bulkString("replication-offset")
        writer.integer(0)
        writer.bulkString("health")
        writer.bulkString("online")
      }
    }
  }

  /// `CLUSTER NODES`: a line per node, in Redis's format (`<id> <host:port@bus-port> <flags>
  /// <primary> <ping-sent> <pong-received> <epoch> <link> <slot>...`). There is no cluster
  /// bus (port 0), no ping and no failover yet (epochs 0); every node is shown connected. This
  /// node's line ends with its open slots (`[slot->-id]` migrating, `[slot-<-id]` importing).
  func clusterNodes(_ session: Session, _ frame: Frame) {
    guard let map = clusterNode(session)?.map else { return }
    let ranges = Self.rangesByNode(map)
    let text = map.nodes.enumerated().map { index, node in
      let flags = index == map.myself ? "myself,master" : "master"
      let fields = [node.id, "\(node.address)@0", flags, "-", "0", "0", "0", "connected"]
      let open = index == map.myself ? Self.openSlotsText(map) : []
      return (fields + ranges[index].map(SlotRangeText.format) + open).joined(separator: " ")
        + "\n"
    }.joined()
    session.reply { $0.verbatim(text) }
  }

  /// `CLUSTER INFO`: Redis's fields. The state is `ok`: a slot no node owns answers
  /// `-CLUSTERDOWN` on its own, as with Redis's `cluster-require-full-coverage no`.
  func clusterInfo(_ session: Session, _ frame: Frame) {
    guard let map = clusterNode(session)?.map else { return }
    let assigned = map.assignedCount
    let fields: [(String, String)] = [
      ("cluster_state", "ok"), ("cluster_slots_assigned", "\(assigned)"),
      ("cluster_slots_ok", "\(assigned)"), ("cluster_slots_pfail", "0"),
      ("cluster_slots_fail", "0"), ("cluster_known_nodes", "\(map.nodes.count)"),
      ("cluster_size", "\(map.size)"), ("cluster_current_epoch", "0"),
      ("cluster_my_epoch", "0"), ("cluster_stats_messages_sent", "0"),
      ("cluster_stats_messages_received", "0"), ("total_cluster_links_buffer_limit_exceeded", "0"),
    ]
    let text = fields.map { "\($0.0):\($0.1)\r\n" }.joined()
    session.reply { $0.verbatim(text) }
  }

  func clusterMyID(_ session: Session, _ frame: Frame) {
    guard let id = clusterNode(session)?.map.myselfNode.id else { return }
    session.reply { $0.bulkString(id) }
  }

  func clusterKeySlot(_ session: Session, _ frame: Frame) {
    guard clusterNode(session) != nil else { return }
    let slot = frame.withUnsafeBytes(of: 2) { Int(HashSlot.of($0)) }
    session.reply { $0.integer(slot) }
  }

  /// `CLUSTER COUNTKEYSINSLOT slot`: how many of this node's machines are in the slot.
  func clusterCountKeysInSlot(_ session: Session, _ frame: Frame) {
    guard clusterNode(session) != nil else { return }
    guard let slot = Int(frame.string(at: 2)) else { return session.fail(.notInteger) }
    guard (0..<HashSlot.count).contains(slot) else {
      return session.fail(.generic("Invalid slot"))
    }
    let count = host.machineCount(inSlot: slot)
    session.reply { $0.integer(count) }
  }

  /// `CLUSTER GETKEYSINSLOT slot count`: up to `count` of this node's machines in the slot
  /// (at most `listLimit` in one reply; a client asks again after moving them, as Redis's
  /// tools do).
  func clusterGetKeysInSlot(_ session: Session, _ frame: Frame) {
    guard clusterNode(session) != nil else { return }
    guard let count = Int(frame.string(at: 3)), let slot = Int(frame.string(at: 2)) else {
      return session.fail(.notInteger)
    }
    guard (0..<HashSlot.count).contains(slot), count >= 0 else {
      return session.fail(.generic("Invalid slot or number of keys"))
    }
    let names = host.machineNames(inSlot: slot, limit: min(count, listLimit))
    session.reply { $0.array(names) }
  }

  /// `CLUSTER SETSLOT slot IMPORTING|MIGRATING|STABLE|NODE [id]`, as Redis's: opens the slot
  /// for a move of its machines, closes it, or gives it to a node (refused while this node
  /// hosts machines in a slot it would give away). Each change is written to the map file
  /// before the reply (`Cluster`).
  func clusterSetSlot(_ session: Session, _ frame: Frame) {
    guard let cluster = clusterNode(session) else { return }
    guard let slot = Int(frame.string(at: 2)), (0..<HashSlot.count).contains(slot) else {
      return session.fail(.generic("Invalid or out of range slot"))
    }
    let action = frame.string(at: 3).uppercased()
    let id = frame.count == 5 ? frame.string(at: 4) : ""
    let before = cluster.map
    do throws(ClusterChangeError) {
      switch (action, frame.count) {
      case ("STABLE", 4): try cluster.setStable(slot)
      case ("IMPORTING", 5): try cluster.setImporting(slot, from: id)
      case ("MIGRATING", 5): try cluster.setMigrating(slot, to: id)
      case ("NODE", 5): try cluster.setSlot(slot, to: id)
      default:
        return session.fail(
          .generic("Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP"))
      }
    } catch .unknownNode {
      return session.fail(
        .generic(action == "NODE" ? "Unknown node \(id)" : "I don't know about node \(id)"))
    } catch .slotsHoldMachines {
      return session.fail(
        .generic(
          "Can't assign hashslot \(slot) to a different node while I still hold keys for this "
            + "hash slot."))
    } catch {
      return session.fail(.generic(error.description))
    }
    if cluster.map != before {
      host.logger.notice(
        "CLUSTER SETSLOT \(slot) \(action)\(id.isEmpty ? "" : " " + id): written to \(cluster.path)"
      )
      clusterMapChanged()
    }
    session.reply { $0.simpleString("OK") }
  }

  /// `CLUSTER HELP`: the subcommands, on a cluster node.
  func clusterHelp(_ session: Session, _ frame: Frame) {
    guard clusterNode(session) != nil else { return }
    subcommandHelp(session, frame)
  }

  /// `READONLY` and `READWRITE`: accepted (a node has no replicas to read from yet).
  func readMode(_ session: Session, _ frame: Frame) {
    guard clusterNode(session) != nil else { return }
    session.reply { $0.simpleString("OK") }
  }

  /// `ASKING`: sets the connection's one-shot flag for its next request.
  func asking(_ session: Session, _ frame: Frame) {
    guard clusterNode(session) != nil else { return }
    session.asking = true
    session.reply { $0.simpleString("OK") }
  }

  /// Reads the cluster map file again (SIGHUP); returns a warning about slots no node owns.
  /// Throws, keeping the map, when the file is bad or would strand machines.
  func reloadClusterMap() throws(ClusterChangeError) -> String? {
    guard let cluster else { return nil }
    let warning = try cluster.reload()
    clusterMapChanged()
    return warning
  }

  /// This node's open slots as `CLUSTER NODES` lists them on its own line, as Redis:
  /// `[slot->-id]` migrating to node `id`, `[slot-<-id]` imported from it.
  private static func openSlotsText(_ map: ClusterMap) -> [String] {
    map.migrating.sorted { $0.key < $1.key }.map { "[\($0.key)->-\(map.nodes[$0.value].id)]" }
      + map.importing.sorted { $0.key < $1.key }.map { "[\($0.key)-<-\(map.nodes[$0.value].id)]" }
  }

  /// Each node's slot ranges, by index.
  private static func rangesByNode(_ map: ClusterMap) -> [[ClosedRange<Int>]] {
    var ranges = [[ClosedRange<Int>]](repeating: [], count: map.nodes.count)
    for (slots, owner) in map.ranges { ranges[owner].append(slots) }
    return ranges
  }
}
