/// Why the host refused or failed a request, as a domain result: the protocol layer turns it
/// into an error reply (`-NOMACHINE no machine x`, ...).
public struct HostFailure: Error, Hashable, Sendable {
  /// What went wrong.
  public enum Code: String, Sendable, CaseIterable {
    /// No such kind.
    case nokind
    /// The kind has no such state.
    case nostate
    /// The kind has no such input.
    case noinput
    /// No such machine.
    case nomachine
    /// A machine with that name exists.
    case exists
    /// The machine's queue (or the runtime) is full; nothing changed.
    case busy
    /// The daemon failed (for example the store could not commit).
    case `internal`
    /// The store is unusable (its files deleted, replaced or unwritable): changes are refused.
    case misconf
    /// The input was handled, but an effect of its transition was dropped for lack of room
    /// (a full timer table, effect pool or queue): the change is made, the effect is not.
    case overflow
  }

  /// What went wrong.
  public var code: Code
  /// The explanation, for people.
  public var text: String

  /// Creates a failure.
  public init(_ code: Code, _ text: String) {
    self.code = code
    self.text = text
  }

  /// The failure for a machine named `name` when one has the name already.
  static func nameTaken(_ name: String) -> HostFailure {
    HostFailure(.exists, "machine \(name) exists")
  }

  /// The failure for a change while the store is unusable, naming why: a refused request
  /// (`changeMade` false: nothing changed), or a change already made in memory whose
  /// acknowledgment waited for a commit that can no longer keep it.
  public static func storeUnusable(_ failure: StoreFailure, changeMade: Bool) -> HostFailure {
    HostFailure(
      .misconf,
      "store unusable: \(failure); "
        + (changeMade
          ? "the change is made in memory but not stored"
          : "changes are refused (reads still work)"))
  }
}
