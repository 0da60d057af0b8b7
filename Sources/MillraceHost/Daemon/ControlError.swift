/// The error codes of control protocol v1 (DESIGN §4.1); a reply reads `-ERR <code> <text>`.
public enum ControlError: String, Sendable, CaseIterable {
  /// Unknown command.
  case unknown
  /// Wrong number or form of arguments.
  case args
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
  /// No transition exists for the input in the machine's state.
  case rejected
  /// The machine's queue (or the runtime) is full; nothing changed.
  case busy
  /// A frame over the length limit.
  case toolong
  /// A malformed frame.
  case `protocol`
  /// Not allowed (authentication required).
  case denied
  /// The daemon failed (for example the store could not commit).
  case `internal`
  /// The store is unusable (its files deleted, replaced or unwritable): changes are refused.
  case misconf
}
