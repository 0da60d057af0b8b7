import MillraceDrawing

/// A strict RFC 8259 syntax pass over a machine file, run before `JSONDecoder`, for the two
/// things the decoder cannot say: where a syntax error is (line and column, counted in
/// characters from 1) and which object keys are repeated (the decoder silently keeps one).
///
/// The syntax is `JSONParser`'s, the one JSON reader of the package (millctl reads `DESCRIBE`
/// replies with it too), so its depth limit holds: a file nested more than
/// `JSONParser.maxDepth` deep is refused, and cannot exhaust the stack.
enum JSONSyntaxCheck {
  /// A syntax error and where it is: 1-based line, 1-based column in characters, and what was
  /// expected or found.
  typealias Failure = JSONParseError

  /// Checks `bytes` (already known to be UTF-8): the first syntax error, or when there is none,
  /// the path of every object member whose key already appeared in the same object, in the
  /// order they are written.
  static func check(_ bytes: [UInt8]) -> (failure: Failure?, duplicateKeys: [JSONPath]) {
    do throws(JSONParseError) {
      var duplicateKeys: [JSONPath] = []
      findDuplicateKeys(in: try JSONParser.parse(utf8: bytes), at: .root, into: &duplicateKeys)
      return (nil, duplicateKeys)
    } catch {
      return (error, [])
    }
  }

  /// Appends to `paths` the repeated keys in `value`, which is at `path`, and in everything
  /// inside it, in the order they are written.
  private static func findDuplicateKeys(
    in value: JSONValue, at path: JSONPath, into paths: inout [JSONPath]
  ) {
    switch value {
    case .object(let members):
      var keys = Set<String>()
      for member in members {
        let memberPath = path.key(member.key)
        if !keys.insert(member.key).inserted { paths.append(memberPath) }
        findDuplicateKeys(in: member.value, at: memberPath, into: &paths)
      }
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        findDuplicateKeys(in: element, at: path.index(index), into: &paths)
      }
    case .null, .bool, .number, .string:
      break
    }
  }
}
