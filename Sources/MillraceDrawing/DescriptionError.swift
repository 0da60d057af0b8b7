/// Why a description could not be read: the JSON is not valid, or a field a drawing needs is
/// missing or of the wrong type. The message names the field (`transitions[2].from: ...`).
public struct DescriptionError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The field, as a path from the top (`transitions[2].from`); empty for the whole text.
  public var path: String
  /// What is wrong.
  public var message: String

  /// An error at `path`.
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }

  /// `transitions[2].from: expected ...`, or the message alone at the top.
  public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
