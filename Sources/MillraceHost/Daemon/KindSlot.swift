/// A kind as a host holds it: the kind, its operations bound to the host's runtime, and how
/// many machines run under it. Machines name their kind by its slot (`DirectoryEntry.kind`),
/// so a kind replaced by a reload stays in its slot, unregistered, for as long as machines
/// that kept its definition run under it; the slot is reused once it has none.
final class KindSlot {
  /// The kind.
  let kind: HostKind
  /// What the host does to its machines.
  let operations: KindOperations
  /// Machines running under it.
  var machines = 0
  /// Whether `SPAWN` finds it by its name (false once another kind of the name replaced it).
  var isRegistered = true

  init(kind: HostKind, operations: KindOperations) {
    self.kind = kind
    self.operations = operations
  }
}
