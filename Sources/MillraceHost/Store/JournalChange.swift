/// One change the store's journal records: a machine saved whole (kind, state and timers), or
/// deleted. A later change of the same name supersedes an earlier one entirely.
enum JournalChange: Equatable {
  case save(StoredMachine)
  case delete(name: String)

  /// The machine the change is about.
  var name: String {
    switch self {
    case .save(let machine): machine.name
    case .delete(let name): name
    }
  }
}
