/// Appends RESP2 replies to a `ByteBuffer`.
///
/// Guarantees:
/// - Output is well-formed RESP2 whatever the input: simple strings and error lines cannot
///   contain CR or LF (each is replaced by a space), bulk strings carry any bytes.
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

  /// Appends to `buffer`.
  @inlinable
  public init(appendingTo buffer: ByteBuffer) {
    self.buffer = buffer
  }

  /// Starts with an empty buffer of its own.
  public init() {
    self.init(appendingTo: ByteBuffer())
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

  /// `-ERR code text\r\n`, the control protocol's error form (§4.1). An empty `text` writes
  /// `-ERR code\r\n`.
  @inlinable
  public mutating func error(_ code: some StringProtocol, _ text: some StringProtocol) {
    append("-ERR ".utf8)
    appendLine(code)
    if !text.isEmpty {
      buffer.append(UInt8(ascii: " "))
      appendLine(text)
    }
    crlf()
  }

  /// `-line\r\n`, an error with a prefix other than `ERR` (for example `WRONGTYPE ...`).
  @inlinable
  public mutating func errorLine(_ line: some StringProtocol) {
    buffer.append(UInt8(ascii: "-"))
    appendLine(line)
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

  /// `$-1\r\n`, the null bulk string.
  @inlinable
  public mutating func null() {
    append("$-1\r\n".utf8)
  }

  /// `*-1\r\n`, the null array.
  @inlinable
  public mutating func nullArray() {
    append("*-1\r\n".utf8)
  }

  /// `*count\r\n`; follow it with exactly `count` elements.
  @inlinable
  public mutating func arrayHeader(_ count: Int) {
    buffer.append(UInt8(ascii: "*"))
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
