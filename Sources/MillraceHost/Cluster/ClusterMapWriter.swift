/// Writes a cluster map in the file format `ClusterMapReader` reads, as Redis writes its
/// `nodes.conf`: a node changes its map file itself when `CLUSTER SETSLOT` changes its map, so
/// that a restart (after a crash too) finds the map it ran with, open slots included.
enum ClusterMapWriter {
  /// The file's text: a comment saying who wrote it, a `node` line per node (its slot runs),
  /// `migrating` and `importing` lines (runs of slots with one other node), and `myself`.
  static func text(of map: ClusterMap) -> String {
    var lines = [
      "# The cluster map of node \(map.myselfNode.id), written by millraced at CLUSTER SETSLOT",
      "# (comments are not kept). Edit it and send SIGHUP to change the map by hand.",
    ]
    for (index, node) in map.nodes.enumerated() {
      let address = node.host.contains(":") ? "[\(node.host)]:\(node.port)" : node.address
      let slots = map.ranges(of: index).map(SlotRangeText.format)
      lines.append((["node", node.id, address] + slots).joined(separator: " "))
    }
    for (statement, slots) in [("migrating", map.migrating), ("importing", map.importing)] {
      for (range, node) in runs(slots) {
        lines.append("\(statement) \(SlotRangeText.format(range)) \(map.nodes[node].id)")
      }
    }
    lines.append("myself \(map.myselfNode.id)")
    return lines.joined(separator: "\n") + "\n"
  }

  /// Replaces the file at `path` with `map`'s text (`DurableFile`): flushed to stable storage
  /// when `sync` (the store's `strict` durability), else kept across a `kill -9`, as the
  /// machines' changes are under `batched`.
  static func write(_ map: ClusterMap, to path: String, sync: Bool) throws(StoreError) {
    try DurableFile.replace(path, with: Array(text(of: map).utf8), sync: sync)
  }

  /// The runs of consecutive slots with one node, in slot order.
  private static func runs(_ slots: [Int: Int]) -> [(ClosedRange<Int>, Int)] {
    var runs: [(ClosedRange<Int>, Int)] = []
    for slot in slots.keys.sorted() {
      let node = slots[slot]!
      if let last = runs.last, last.0.upperBound == slot - 1, last.1 == node {
        runs[runs.count - 1].0 = last.0.lowerBound...slot
      } else {
        runs.append((slot...slot, node))
      }
    }
    return runs
  }
}
