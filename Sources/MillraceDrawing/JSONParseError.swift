/// Why `JSONParser` refused a text, and where: the first problem found.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The line of the problem, from 1.
  public var line: Int
  /// The column of the problem, from 1, in Unicode scalars.
  public var column: Int
  /// What was expected or found there.
  public var message: String

  /// An error at `line`, `column`.
  public init(line: Int, column: Int, message: String) {
    self.line = line
    self.column = column
    self.message = message
  }

  /// `line 3, column 7: expected ...`.
  public var description: String { "line \(line), column \(column): \(message)" }
}
