/// Why the stored machines were not restored: nothing was spawned, and the daemon must not
/// serve (a partial restore would lose machines silently).
public enum RestoreRefusal: Error, Hashable, Sendable, CustomStringConvertible {
  /// The store could not be read.
  case unreadable(String)
  /// Stored machines need what the definitions no longer have.
  case definitions(DefinitionChangeError)
  /// The store holds more machines than the runtime has room for.
  case tooManyMachines(stored: Int, limit: Int)
  /// The stored machines have more pending timers than the runtime has room for.
  case tooManyTimers(stored: Int, limit: Int)
  /// The stored machines have more pending timers than the runtime's effect pool holds.
  case tooManyEffects(stored: Int, limit: Int)

  /// One sentence per problem, naming the flag to raise for a capacity.
  public var description: String {
    switch self {
    case .unreadable(let error):
      return "could not read the store: \(error)"
    case .definitions(let error):
      return "stored machines do not fit the machine files:\n\(error)"
    case .tooManyMachines(let stored, let limit):
      return "the store holds \(stored) machines but --max-machines is \(limit): "
        + "start with --max-machines \(stored) or more (nothing was restored)"
    case .tooManyTimers(let stored, let limit):
      return "the stored machines have \(stored) pending timers but --max-timers is \(limit): "
        + "start with --max-timers \(stored) or more (nothing was restored)"
    case .tooManyEffects(let stored, let limit):
      return "the stored machines have \(stored) pending timers but --max-effects is \(limit): "
        + "start with --max-effects \(stored) or more (nothing was restored)"
    }
  }
}
