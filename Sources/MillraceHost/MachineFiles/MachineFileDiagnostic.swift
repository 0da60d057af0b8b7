/// One problem found in a machine file: which file, which field, and what is wrong.
///
/// `description` is the line a user sees, `file: path: message`, for example
/// `auth.json: transitions[2].to: unknown state "logedIn"`; when the problem is not tied to
/// a field (a JSON syntax error, an unreadable file) the path is empty and left out. The same
/// shape serves errors (the file is refused) and warnings (the file loads).
public struct MachineFileDiagnostic: Hashable, Sendable, CustomStringConvertible {
  /// The file's name as the user knows it (relative to the machines directory), e.g. `auth.json`.
  public var file: String
  /// The JSON path of the field, e.g. `transitions[2].to` or `queues.request.max`; may be empty.
  public var path: String
  /// What is wrong, without the file and path.
  public var message: String

  /// Creates a diagnostic.
  public init(file: String, path: String, message: String) {
    self.file = file
    self.path = path
    self.message = message
  }

  /// `file: path: message`, or `file: message` when the path is empty.
  public var description: String {
    path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)"
  }
}

/// The error thrown when machine files are refused: every problem found, in file order.
///
/// Loading never stops at the first problem of a directory: each file is checked completely
/// (shape first, then references) and the errors of all files are collected here.
public struct MachineFileErrors: Error, Sendable, CustomStringConvertible {
  /// The problems, never empty when thrown.
  public var errors: [MachineFileDiagnostic]

  /// Wraps a list of problems.
  public init(_ errors: [MachineFileDiagnostic]) {
    self.errors = errors
  }

  /// One problem per line.
  public var description: String {
    errors.map(\.description).joined(separator: "\n")
  }
}
