#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Why the store can no longer keep changes: one of its files or its directory is gone,
/// replaced or unwritable. Its description is one sentence that names the path, for example
/// `/x/data/machines.journal was deleted or moved`.
public struct StoreFailure: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file or directory.
  public var path: String
  /// What is wrong with it, as the end of a sentence (`was deleted or moved`).
  public var problem: String
  /// Whether `path` is the data directory (it is then named as such).
  public var isDirectory: Bool

  /// Creates a failure.
  public init(path: String, problem: String, isDirectory: Bool = false) {
    self.path = path
    self.problem = problem
    self.isDirectory = isDirectory
  }

  /// `[data directory ]<path> <problem>`.
  public var description: String { "\(isDirectory ? "data directory " : "")\(path) \(problem)" }

  /// The system's text for `code`, starting lower-case to be read inside a sentence
  /// (`read-only file system`).
  static func reason(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
  }
}
