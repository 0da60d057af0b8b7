/// A version of the Redis serialization protocol a reply is encoded in.
public enum RESPVersion: Int, Sendable, Hashable {
  /// RESP2, every client's default: nulls, maps, sets and push frames fall back to arrays and
  /// null bulk strings.
  case resp2 = 2
  /// RESP3, after `HELLO 3`: maps, sets, nulls, doubles, booleans and push frames as such.
  case resp3 = 3
}

/// Appends RESP2 or RESP3 replies to a `ByteBuffer`.
///
/// Guarantees:
/// - Output is well-formed in its `version` whatever the input: simple strings and error lines
///   cannot contain CR or LF (each is replaced by a space), bulk strings carry any bytes.
/// - The RESP3 types fall back in RESP2 the way Redis encodes them for a RESP2 client: a map is
///   an array of keys and values, a set or push frame an array, a null a null bulk string, a
///   double a bulk string, a boolean an integer, a verbatim string a bulk string.
/// - Appends only; never allocates beyond growing the buffer (numbers are formatted in place).
///
/// Every method is inlinable, so a reply built in another module is specialized for its
/// argument types there (no generic calls per reply).
///
/// Replies are built with a sequence of calls, for example an array of two bulk strings:
/// `writer.arrayHeader(2); writer.bulkString("from"); writer.bulkString("to")`.
public struct RESPWriter {
  /// Where the bytes go (shared by copies of the writer).
  public let buffer: ByteBuffer
  /// The protocol version replies are encoded in.
  public let version: RESPVersion

  /// Appends to `buffer`, encoding in `version`.
  @inlinable
  public init(appendingTo buffer: ByteBuffer, version: RESPVersion = .resp2) {
    self.buffer = buffer
    self.version = version
  }

  /// Starts with an empty buffer of its own.
  public init(version: RESPVersion = .resp2) {
    self.init(appendingTo: ByteBuffer(), version: version)
  }

  /// The encoded bytes so far, copied.
  public var bytes: [UInt8] { buffer.bytes }

  /// `+text\r\n`, for example `+OK` or `+PONG`.
  @inlinable
  public mutating func simpleString(_ text: some StringProtocol) {
    buffer.append(UInt8(ascii: "+"))
    appendLine(text)
    crlf()
  }

  /// `-PREFIX text\r\n`, an error in Redis's form: the prefix is a word clients match on
  /// (`ERR` for generic errors, `NOMACHINE`, `BUSY`, ...), the text is for people. An empty
  /// `text` writes `-PREFIX\r\n`.
  @inlinable
  public mutating func error(_ prefix: some StringProtocol, _ text: some StringProtocol) {
    buffer.append(UInt8(ascii: "-"))
    appendLine(prefix)
    if !text.isEmpty {
      buffer.append(UInt8(ascii: " "))
      appendLine(text)
    }
    crlf()
  }

  /// `:value\r\n`.
  @inlinable
  public mutating func integer(_ value: Int) {
    buffer.append(UInt8(ascii: ":"))
    decimal(value)
    crlf()
  }

  /// `$length\r\nbytes\r\n`.
  @inlinable
  public mutating func bulkString(_ data: some Collection<UInt8>) {
    let buffer = self.buffer
    // Most replies' strings (states, inputs, names) are short and contiguous: one room check
    // and one pass instead of five appends.
    let written: Bool? = data.withContiguousStorageIfAvailable { bytes in
      let count = bytes.count
      guard count < 10, let source = bytes.baseAddress else { return false }
      buffer.append(length: count &+ 6) { target in
        target[0] = UInt8(ascii: "$")
        target[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: count)
        target[2] = 13
        target[3] = 10
        (target + 4).update(from: source, count: count)
        target[count &+ 4] = 13
        target[count &+ 5] = 10
      }
      return true
    }
    guard written != true else { return }
    buffer.append(UInt8(ascii: "$"))
    decimal(data.count)
    crlf()
    append(data)
    crlf()
  }

  /// `$length\r\ntext\r\n` with the text's UTF-8 bytes.
  @inlinable
  public mutating func bulkString(_ text: some StringProtocol) {
    bulkString(text.utf8)
  }

  /// A null: `_` in RESP3, the null bulk string `$-1` in RESP2.
  @inlinable
  public mutating func null() {
    append(version == .resp3 ? "_\r\n".utf8 : "$-1\r\n".utf8)
  }

  /// A null where RESP2 has a null array (`*-1`, for example a blocked command's timeout);
  /// `_` in RESP3.
  @inlinable
  public mutating func nullArray() {
    append(version == .resp3 ? "_\r\n".utf8 : "*-1\r\n".utf8)
  }

  /// A map of `pairs` key–value pairs: `%pairs` in RESP3, an array of `2 × pairs` elements in
  /// RESP2. Follow it with each key and its value.
  @inlinable
  public mutating func mapHeader(_ pairs: Int) {
    aggregateHeader(version == .resp3 ? UInt8(ascii: "%") : UInt8(ascii: "*"), count: pairs, 2)
  }

  /// A set of `count` elements: `~count` in RESP3, an array in RESP2.
  @inlinable
  public mutating func setHeader(_ count: Int) {
    aggregateHeader(version == .resp3 ? UInt8(ascii: "~") : UInt8(ascii: "*"), count: count, 1)
  }

  /// An out-of-band push frame of `count` elements (pub/sub messages): `>count` in RESP3, an
  /// array in RESP2.
  @inlinable
  public mutating func pushHeader(_ count: Int) {
    aggregateHeader(version == .resp3 ? UInt8(ascii: ">") : UInt8(ascii: "*"), count: count, 1)
  }

  /// A boolean: `#t` / `#f` in RESP3, `:1` / `:0` in RESP2.
  @inlinable
  public mutating func boolean(_ value: Bool) {
    guard version == .resp3 else { return integer(value ? 1 : 0) }
    append(value ? "#t\r\n".utf8 : "#f\r\n".utf8)
  }

  /// A double: `,value` in RESP3 (`inf`, `-inf`, `nan` as RESP3 spells them), a bulk string
  /// of the same text in RESP2.
  @inlinable
  public mutating func double(_ value: Double) {
    let text =
      value.isNaN ? "nan" : value.isInfinite ? (value < 0 ? "-inf" : "inf") : "\(value)"
    guard version == .resp3 else { return bulkString(text) }
    buffer.append(UInt8(ascii: ","))
    append(text.utf8)
    crlf()
  }

  /// Text for people (INFO, CLIENT LIST): a verbatim string of format `txt` in RESP3, a bulk
  /// string in RESP2.
  @inlinable
  public mutating func verbatim(_ text: some StringProtocol) {
    guard version == .resp3 else { return bulkString(text) }
    buffer.append(UInt8(ascii: "="))
    decimal(text.utf8.count + 4)
    crlf()
    append("txt:".utf8)
    append(text.utf8)
    crlf()
  }

  @inlinable
  mutating func aggregateHeader(_ type: UInt8, count: Int, _ elementsPerItem: Int) {
    buffer.append(type)
    decimal(type == UInt8(ascii: "*") ? count * elementsPerItem : count)
    crlf()
  }

  /// `*count\r\n`; follow it with exactly `count` elements.
  @inlinable
  public mutating func arrayHeader(_ count: Int) {
    aggregateHeader(UInt8(ascii: "*"), count: count, 1)
  }

  /// An array of bulk strings.
  @inlinable
  public mutating func array(_ items: some Collection<some StringProtocol>) {
    arrayHeader(items.count)
    for item in items { bulkString(item) }
  }

  /// The bytes of a request as clients send it: an array of bulk strings.
  public static func request(_ parts: some Collection<some StringProtocol>) -> [UInt8] {
    var writer = RESPWriter()
    writer.array(parts)
    return writer.bytes
  }

  /// Appends bytes as they are (for line protocols, or pre-encoded replies).
  @inlinable
  public mutating func raw(_ data: some Sequence<UInt8>) {
    append(data)
  }

  /// Appends `data` through its contiguous storage when it has one (a string's UTF-8, an
  /// array, a slice, a raw buffer): one copy, no iterator.
  @inlinable
  mutating func append(_ data: some Sequence<UInt8>) {
    let buffer = self.buffer
    if data.withContiguousStorageIfAvailable({ buffer.append(UnsafeRawBufferPointer($0)) }) == nil {
      for byte in data { buffer.append(byte) }
    }
  }

  @inlinable @inline(__always)
  mutating func crlf() {
    buffer.append(length: 2) {
      $0[0] = 13
      $0[1] = 10
    }
  }

  @inlinable
  mutating func appendLine(_ text: some StringProtocol) {
    let start = buffer.count
    append(text.utf8)
    let base = buffer.base
    for index in start..<buffer.count where base[index] == 13 || base[index] == 10 {
      base[index] = 32
    }
  }

  @inlinable
  mutating func decimal(_ value: Int) {
    if value >= 0 && value < 10 {  // most lengths and counts
      buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
      return
    }
    var magnitude = value.magnitude
    if value < 0 { buffer.append(UInt8(ascii: "-")) }
    var digits = 1
    var probe = magnitude
    while probe >= 10 {
      probe /= 10
      digits += 1
    }
    buffer.append(length: digits) { first in
      var index = digits - 1
      repeat {
        first[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        index -= 1
      } while magnitude > 0
    }
  }
}
