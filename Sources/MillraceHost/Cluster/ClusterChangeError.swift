/// Why a change of the cluster map (`CLUSTER SETSLOT`, a reload of the map file) was refused;
/// the map stays as it was.
public enum ClusterChangeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file cannot be read or is malformed.
  case file(ClusterMapError)
  /// The file names another node as `myself`: a node's id does not change while it runs.
  case myselfChanged(from: String, to: String)
  /// No node of the map has this id.
  case unknownNode(String)
  /// The change gives slots that hold machines of this node to other nodes (or to none), which
  /// would leave the machines where no client is sent: move them first (`MIGRATE`,
  /// docs/cluster.md).
  case slotsHoldMachines(slots: [Int], machines: NameSample)
  /// A slot to migrate is not this node's.
  case notOwner(Int)
  /// A slot to import is this node's already.
  case alreadyOwner(Int)
  /// A slot would migrate to, or be imported from, this node itself.
  case myselfNamed
  /// The map file could not be written: the change is not made.
  case unwritable(path: String, String)

  /// One sentence per problem.
  public var description: String {
    switch self {
    case .file(let error): return error.description
    case .myselfChanged(let from, let to):
      return "the map names this node \(to), but it runs as \(from): a node's id cannot change "
        + "while it runs"
    case .unknownNode(let id): return "no node \(id.prefix(60)) in the cluster map"
    case .slotsHoldMachines(let slots, let machines):
      let shown = slots.prefix(8).map(String.init).joined(separator: ", ")
      return "the change takes \(slots.count == 1 ? "slot" : "slots") \(shown)"
        + "\(slots.count > 8 ? ", …" : "") from this node, which hosts \(machines) in them; "
        + "the map stays as it was (move them first: MIGRATE)"
    case .notOwner(let slot): return "I'm not the owner of hash slot \(slot)"
    case .alreadyOwner(let slot): return "I'm already the owner of hash slot \(slot)"
    case .myselfNamed: return "Target node is this node itself"
    case .unwritable(let path, let reason):
      return "cannot write the cluster map file \(path) (\(reason)): the map stays as it was"
    }
  }
}
