/// Appends RESP2 replies to a byte buffer.
///
/// Guarantees:
/// - Output is well-formed RESP2 whatever the input: simple strings and error lines cannot
///   contain CR or LF (each is replaced by a space), bulk strings carry any bytes.
/// - Appends only; never allocates beyond growing `bytes` (numbers are formatted in place).
///
/// Every method is inlinable, so a reply built in another module is specialized for its
/// argument types there (no generic calls per reply).
///
/// Replies are built with a sequence of calls, for example an array of two bulk strings:
/// `writer.arrayHeader(2); writer.bulkString("from"); writer.bulkString("to")`.
public struct RESPWriter: Sendable {
  /// The encoded bytes so far.
  public var bytes: [UInt8]

  /// Starts with `bytes` (appended to, not replaced).
  @inlinable
  public init(bytes: [UInt8] = []) {
    self.bytes = bytes
  }

  /// `+text\r\n`, for example `+OK` or `+PONG`.
  @inlinable
  public mutating func simpleString(_ text: some StringProtocol) {
    bytes.append(UInt8(ascii: "+"))
    appendLine(text)
    crlf()
  }

  /// `-ERR code text\r\n`, the control protocol's error form (§4.1). An empty `text` writes
  /// `-ERR code\r\n`.
  @inlinable
  public mutating func error(_ code: some StringProtocol, _ text: some StringProtocol) {
    bytes.append(contentsOf: "-ERR ".utf8)
    appendLine(code)
    if !text.isEmpty {
      bytes.append(UInt8(ascii: " "))
      appendLine(text)
    }
    crlf()
  }

  /// `-line\r\n`, an error with a prefix other than `ERR` (for example `WRONGTYPE ...`).
  @inlinable
  public mutating func errorLine(_ line: some StringProtocol) {
    bytes.append(UInt8(ascii: "-"))
    appendLine(line)
    crlf()
  }

  /// `:value\r\n`.
  @inlinable
  public mutating func integer(_ value: Int) {
    bytes.append(UInt8(ascii: ":"))
    decimal(value)
    crlf()
  }

  /// `$length\r\nbytes\r\n`.
  @inlinable
  public mutating func bulkString(_ data: some Collection<UInt8>) {
    bytes.append(UInt8(ascii: "$"))
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

  /// `$-1\r\n`, the null bulk string.
  @inlinable
  public mutating func null() {
    bytes.append(contentsOf: "$-1\r\n".utf8)
  }

  /// `*-1\r\n`, the null array.
  @inlinable
  public mutating func nullArray() {
    bytes.append(contentsOf: "*-1\r\n".utf8)
  }

  /// `*count\r\n`; follow it with exactly `count` elements.
  @inlinable
  public mutating func arrayHeader(_ count: Int) {
    bytes.append(UInt8(ascii: "*"))
    decimal(count)
    crlf()
  }

  /// An array of bulk strings.
  @inlinable
  public mutating func array(_ items: some Collection<some StringProtocol>) {
    arrayHeader(items.count)
    for item in items { bulkString(item) }
  }

  /// Appends bytes as they are (for line protocols, or pre-encoded replies).
  @inlinable
  public mutating func raw(_ data: some Sequence<UInt8>) {
    append(data)
  }

  /// Appends `data` through its contiguous storage when it has one (a string's UTF-8, an
  /// array, a slice): one copy, no iterator.
  @inlinable
  mutating func append(_ data: some Sequence<UInt8>) {
    if data.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
      bytes.append(contentsOf: data)
    }
  }

  @inlinable @inline(__always)
  mutating func crlf() {
    bytes.append(13)
    bytes.append(10)
  }

  @inlinable
  mutating func appendLine(_ text: some StringProtocol) {
    let start = bytes.count
    append(text.utf8)
    for index in start..<bytes.count where bytes[index] == 13 || bytes[index] == 10 {
      bytes[index] = 32
    }
  }

  @inlinable
  mutating func decimal(_ value: Int) {
    if value >= 0 && value < 10 {  // most lengths and counts
      bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
      return
    }
    var magnitude = value.magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var digits = 1
    var probe = magnitude
    while probe >= 10 {
      probe /= 10
      digits += 1
    }
    let end = bytes.count + digits
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
    var index = end - 1
    repeat {
      bytes[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
      magnitude /= 10
      index -= 1
    } while magnitude > 0
  }
}
