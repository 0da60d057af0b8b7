/// Why a cluster map file was refused: every problem found, each naming the file and, when the
/// problem is on one line, the line (`cluster.conf:3: slot 16384 is outside 0-16383`).
public struct ClusterMapError: Error, Hashable, Sendable, CustomStringConvertible {
  /// One problem.
  public struct Problem: Hashable, Sendable {
    /// The line (from 1), or nil for a problem of the whole file (no `myself` line).
    public var line: Int?
    /// What is wrong.
    public var message: String

    /// A problem on `line`.
    public init(line: Int?, _ message: String) {
      self.line = line
      self.message = message
    }
  }

  /// The file as it was named (`--cluster-config`).
  public var file: String
  /// The problems, in line order (whole-file problems last); never empty when thrown.
  public var problems: [Problem]

  /// The problems of `file`.
  public init(file: String, problems: [Problem]) {
    self.file = file
    self.problems = problems
  }

  /// One problem per line, each `file:line: message` (or `file: message`).
  public var description: String {
    problems.map { problem in
      problem.line.map { "\(file):\($0): \(problem.message)" } ?? "\(file): \(problem.message)"
    }.joined(separator: "\n")
  }
}
