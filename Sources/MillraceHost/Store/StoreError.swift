#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A failure of the machine store, with SQLite's own message (or the system's, for the
/// journal).
public struct StoreError: Error, CustomStringConvertible, Sendable {
  /// What the store was doing.
  public var operation: String
  /// SQLite's result code, or the `errno` of a failed journal operation.
  public var code: Int32
  /// SQLite's (or the system's) message.
  public var message: String

  /// Creates an error.
  public init(operation: String, code: Int32, message: String) {
    self.operation = operation
    self.code = code
    self.message = message
  }

  /// `operation: message (code N)`.
  public var description: String { "\(operation): \(message) (code \(code))" }

  /// The failure of a system call: `operation` with the system's message for `code` (by
  /// default, the `errno` it left).
  static func system(_ operation: String, _ code: Int32 = errno) -> StoreError {
    StoreError(operation: operation, code: code, message: String(cString: strerror(code)))
  }

  /// A checkpoint stopped before its end because the store asked it to (a clean stop takes
  /// its journal into one last checkpoint instead): nothing of it was written.
  static let abandonedCheckpoint = StoreError(
    operation: "checkpoint", code: ECANCELED, message: "abandoned for the clean stop's own")

  /// Whether this is `abandonedCheckpoint`: asked for, not a failure.
  var isAbandonedCheckpoint: Bool {
    self.operation == Self.abandonedCheckpoint.operation
      && code == Self.abandonedCheckpoint.code && message == Self.abandonedCheckpoint.message
  }
}
