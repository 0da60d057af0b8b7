/// Parses RESP2 replies from bytes as they arrive; keeps what is incomplete for later.
public struct RESPReplyParser: Sendable {
  private var buffer: [UInt8] = []
  private var start = 0

  /// A malformed reply.
  public struct Malformed: Error, Sendable {}

  /// Arrays nested deeper than this are refused as malformed (parsing recurses per level).
  public static let maxDepth = 512

  /// An empty parser.
  public init() {}

  /// Adds received bytes.
  public mutating func append(_ bytes: some Collection<UInt8>) {
    if start > 0 && start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next complete reply, or nil when more bytes are needed.
  public mutating func next() throws(Malformed) -> RESPValue? {
    var cursor = start
    guard let value = try parse(&cursor, depth: 0) else { return nil }
    start = cursor
    return value
  }

  private func line(_ cursor: inout Int) -> String? {
    var index = cursor
    while index + 1 < buffer.count {
      if buffer[index] == 13 && buffer[index + 1] == 10 {
        let text = String(decoding: buffer[cursor..<index], as: UTF8.self)
        cursor = index + 2
        return text
      }
      index += 1
    }
    return nil
  }

  private func parse(_ cursor: inout Int, depth: Int) throws(Malformed) -> RESPValue? {
    guard cursor < buffer.count else { return nil }
    guard depth <= Self.maxDepth else { throw Malformed() }
    let kind = buffer[cursor]
    var position = cursor + 1
    guard let text = line(&position) else { return nil }
    switch kind {
    case UInt8(ascii: "+"):
      cursor = position
      return .simple(text)
    case UInt8(ascii: "-"):
      cursor = position
      return .error(text)
    case UInt8(ascii: ":"):
      guard let value = Int(text) else { throw Malformed() }
      cursor = position
      return .integer(value)
    case UInt8(ascii: "$"):
      guard let length = Int(text), length >= -1 else { throw Malformed() }
      if length == -1 {
        cursor = position
        return .bulk(nil)
      }
      // Compared without adding to `length`, which may be as large as Int.max.
      guard length <= buffer.count - position - 2 else { return nil }
      let value = String(decoding: buffer[position..<position + length], as: UTF8.self)
      cursor = position + length + 2
      return .bulk(value)
    case UInt8(ascii: "*"):
      guard let count = Int(text), count >= -1 else { throw Malformed() }
      if count == -1 {
        cursor = position
        return .array(nil)
      }
      var values: [RESPValue] = []
      for _ in 0..<count {
        guard let value = try parse(&position, depth: depth + 1) else { return nil }
        values.append(value)
      }
      cursor = position
      return .array(values)
    default:
      throw Malformed()
    }
  }
}
