/// Parses replies, RESP2 and RESP3, from bytes as they arrive; keeps what is incomplete for
/// later.
///
/// Guarantees:
/// - Reads every type Redis 7 sends: RESP2's `+ - : $ *` (with the null bulk string and the
///   null array), RESP3's `_` null, `,` double, `#` boolean, `(` big number, `=` verbatim
///   string, `!` blob error (an `.error` like `-`), `%` map, `~` set and `>` push frame, nested
///   to any depth up to `maxDepth`. An attribute (`|`) is read and dropped: the value it
///   annotates comes out as if it had none, as RESP3 lets a client do. Streamed strings and
///   aggregates (`$?`, `*?`), which Redis never sends, are malformed.
/// - Any split of the input gives the same replies and the same failure, one byte at a time
///   included; an aggregate's finished elements are kept, so a long reply is parsed in time
///   linear in its size however it arrives (only an unfinished line or string is read again).
/// - No recursion: an aggregate deeper than `maxDepth` is malformed, never a stack overflow.
/// - Malformed input (an unknown type byte, a bad length or number, a missing CRLF after a
///   string) throws `Malformed`; that is terminal: `next()` throws again from then on.
public struct RESPReplyParser: Sendable {
  /// A malformed reply.
  public struct Malformed: Error, Sendable {}

  /// Aggregates nested deeper than this are refused as malformed.
  public static let maxDepth = 512

  private var buffer: [UInt8] = []
  /// Where the next unread item starts.
  private var start = 0
  /// The aggregates being read, outermost first.
  private var open: [Aggregate] = []
  private var failed = false

  /// An empty parser.
  public init() {}

  /// Adds received bytes.
  public mutating func append(_ bytes: some Collection<UInt8>) {
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start >= 64 * 1024 && start >= buffer.count / 2 {
      buffer.removeSubrange(..<start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next complete reply, or nil when more bytes are needed.
  public mutating func next() throws(Malformed) -> RESPValue? {
    guard !failed else { throw Malformed() }
    do {
      return try step()
    } catch {
      failed = true
      throw error
    }
  }

  private mutating func step() throws(Malformed) -> RESPValue? {
    while let item = try readItem() {
      let value: RESPValue
      switch item {
      case .value(let scalar):
        value = scalar
      case .aggregate(let aggregate):
        guard open.count < Self.maxDepth else { throw Malformed() }
        guard aggregate.isFull else {
          open.append(aggregate)
          continue
        }
        guard let empty = aggregate.value else { continue }  // an empty attribute
        value = empty
      }
      if let reply = finish(value) { return reply }
    }
    return nil
  }

  /// Adds `value` to the innermost open aggregate, closing the aggregates it fills; returns the
  /// reply when `value` completes one (or is one).
  private mutating func finish(_ value: RESPValue) -> RESPValue? {
    var value = value
    while let innermost = open.indices.last {
      open[innermost].elements.append(value)
      guard open[innermost].isFull else { return nil }
      // A finished attribute annotates the next value, which takes its place.
      guard let closed = open.removeLast().value else { return nil }
      value = closed
    }
    return value
  }

  /// What one item of the input is: a whole value, or the header of an aggregate.
  private enum Item {
    case value(RESPValue)
    case aggregate(Aggregate)
  }

  /// An aggregate being read.
  private struct Aggregate: Sendable {
    enum Kind: Sendable {
      case array, set, push, map, attribute
    }

    let kind: Kind
    /// How many elements it holds when complete (two per pair in a map or an attribute).
    let count: Int
    var elements: [RESPValue] = []

    var isFull: Bool { elements.count == count }

    /// The finished aggregate's value; nil for an attribute.
    var value: RESPValue? {
      switch kind {
      case .array: .array(elements)
      case .set: .set(elements)
      case .push: .push(elements)
      case .attribute: nil
      case .map:
        .map(stride(from: 0, to: count, by: 2).map { .init(elements[$0], elements[$0 + 1]) })
      }
    }
  }

  /// Reads the item at `start` and moves past it; nil, moving nothing, when it is incomplete.
  private mutating func readItem() throws(Malformed) -> Item? {
    guard start < buffer.count, let lineEnd = lineEnd(from: start + 1) else { return nil }
    let line = buffer[start + 1..<lineEnd]
    var end = lineEnd + 2
    let item: Item
    switch buffer[start] {
    case UInt8(ascii: "+"): item = .value(.simple(Self.text(line)))
    case UInt8(ascii: "-"): item = .value(.error(Self.text(line)))
    case UInt8(ascii: ":"): item = .value(.integer(try Self.number(line)))
    case UInt8(ascii: "_"):
      guard line.isEmpty else { throw Malformed() }
      item = .value(.null)
    case UInt8(ascii: "#"):
      guard line.count == 1, line.first == UInt8(ascii: "t") || line.first == UInt8(ascii: "f")
      else { throw Malformed() }
      item = .value(.boolean(line.first == UInt8(ascii: "t")))
    case UInt8(ascii: ","):
      guard let value = Double(Self.text(line)) else { throw Malformed() }
      item = .value(.double(value))
    case UInt8(ascii: "("):
      let digits =
        line.first == UInt8(ascii: "-") || line.first == UInt8(ascii: "+")
        ? line.dropFirst() : line
      guard !digits.isEmpty, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
        throw Malformed()
      }
      item = .value(.bigNumber((line.first == UInt8(ascii: "-") ? "-" : "") + Self.text(digits)))
    case let kind
    where kind == UInt8(ascii: "$") || kind == UInt8(ascii: "=")
      || kind == UInt8(ascii: "!"):
      let length = try Self.number(line)
      if length == -1 && kind == UInt8(ascii: "$") {
        item = .value(.bulk(nil))
        break
      }
      guard length >= 0 else { throw Malformed() }
      // Compared without adding to `length`, which may be as large as Int.max.
      guard length <= buffer.count - end - 2 else { return nil }
      let data = buffer[end..<end + length]
      end += length + 2
      guard buffer[end - 2] == 13, buffer[end - 1] == 10 else { throw Malformed() }
      item = .value(try Self.blob(kind, data))
    case UInt8(ascii: "*"):
      let count = try Self.number(line)
      if count == -1 {
        item = .value(.array(nil))
        break
      }
      item = .aggregate(try Self.aggregate(.array, count))
    case UInt8(ascii: "~"): item = .aggregate(try Self.aggregate(.set, Self.number(line)))
    case UInt8(ascii: ">"): item = .aggregate(try Self.aggregate(.push, Self.number(line)))
    case UInt8(ascii: "%"): item = .aggregate(try Self.aggregate(.map, Self.number(line)))
    case UInt8(ascii: "|"): item = .aggregate(try Self.aggregate(.attribute, Self.number(line)))
    default: throw Malformed()
    }
    start = end
    return item
  }

  /// The index of the CR of the first CRLF from `index`, nil when there is none yet.
  private func lineEnd(from index: Int) -> Int? {
    var index = index
    while index + 1 < buffer.count {
      if buffer[index] == 13 && buffer[index + 1] == 10 { return index }
      index += 1
    }
    return nil
  }

  /// A `$` bulk string, `=` verbatim string or `!` blob error.
  private static func blob(_ kind: UInt8, _ data: ArraySlice<UInt8>) throws(Malformed)
    -> RESPValue
  {
    switch kind {
    case UInt8(ascii: "$"): return .bulk(text(data))
    case UInt8(ascii: "!"): return .error(text(data))
    default:
      // `fmt:text`, the format three bytes long.
      guard data.count >= 4, data[data.startIndex + 3] == UInt8(ascii: ":") else {
        throw Malformed()
      }
      return .verbatim(format: text(data.prefix(3)), text: text(data.dropFirst(4)))
    }
  }

  /// The header of an aggregate of `count` elements (pairs for a map or an attribute).
  private static func aggregate(_ kind: Aggregate.Kind, _ count: Int) throws(Malformed)
    -> Aggregate
  {
    let pairs = kind == .map || kind == .attribute
    guard count >= 0, !pairs || count <= Int.max / 2 else { throw Malformed() }
    return Aggregate(kind: kind, count: pairs ? count * 2 : count)
  }

  private static func number(_ line: ArraySlice<UInt8>) throws(Malformed) -> Int {
    guard let value = Int(text(line)) else { throw Malformed() }
    return value
  }

  private static func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}
