/// Splits an inline command into words the way Redis does (`sdssplitargs` in Redis 7's sds.c).
///
/// Guarantees, for one line (its `\n` and one `\r` before it already removed):
/// - Blanks before a word are space, tab, CR, LF, VT and FF; a bare word ends at a space, tab,
///   CR or LF only (VT and FF inside a word are part of it, as in Redis).
/// - `"..."` reads the escapes `\n \r \t \b \a`, `\xHH` (two hex digits) and `\` before any
///   other byte, which stands for that byte (`\\`, `\"`, `\q` is `q`). `'...'` keeps every byte
///   but `\'`, which stands for `'`. A quote may follow bare bytes (`a"b c"` is `ab c`), and
///   `""` is an empty word.
/// - A closing quote followed by anything but a blank or the end of the line, or a quote never
///   closed, makes the line malformed: `.protocol("unbalanced quotes in request")`, what Redis
///   answers (`-ERR Protocol error: unbalanced quotes in request`) before closing.
/// - A NUL byte is an ordinary byte (Redis stops reading the line there; a binary-safe decoder
///   has no reason to).
/// - Decoded words are never longer than the line: escapes only shrink.
enum InlineSplitter {
  /// The reason of the error for a malformed line.
  static let unbalancedQuotes = "unbalanced quotes in request"

  /// Appends to `ranges` the words of the line `bytes` (whose indices are those of the buffer
  /// it is a slice of). Returns nil when the words are ranges of that buffer, the common case of
  /// a line without quotes, which allocates nothing; otherwise the storage of the decoded
  /// words, which `ranges` then index.
  static func split(_ bytes: ArraySlice<UInt8>, into ranges: inout [Range<Int>])
    throws(FramingError) -> [UInt8]?
  {
    let first = ranges.count
    var position = bytes.startIndex
    while true {
      while position < bytes.endIndex && isBlank(bytes[position]) { position += 1 }
      guard position < bytes.endIndex else { return nil }
      let start = position
      while position < bytes.endIndex && !endsBareWord(bytes[position]) {
        if isQuote(bytes[position]) {
          ranges.removeSubrange(first...)
          return try decode(bytes, into: &ranges)
        }
        position += 1
      }
      ranges.append(start..<position)
    }
  }

  /// The words of a line with quotes, decoded into new storage.
  private static func decode(_ bytes: ArraySlice<UInt8>, into ranges: inout [Range<Int>])
    throws(FramingError) -> [UInt8]
  {
    var words: [UInt8] = []
    words.reserveCapacity(bytes.count)
    var position = bytes.startIndex
    /// The byte `offset` after `position`, nil past the line's end.
    func peek(_ offset: Int) -> UInt8? {
      position + offset < bytes.endIndex ? bytes[position + offset] : nil
    }
    while true {
      while let byte = peek(0), isBlank(byte) { position += 1 }
      guard peek(0) != nil else { return words }
      let start = words.count
      var quote: UInt8?
      word: while true {
        guard let byte = peek(0) else {
          if quote != nil { throw .protocol(unbalancedQuotes) }
          break word
        }
        position += 1
        switch quote {
        case nil:
          if endsBareWord(byte) { break word }
          if isQuote(byte) { quote = byte } else { words.append(byte) }
        case byte?:
          // A closing quote: the word ends, and a blank or the line's end must follow.
          if let next = peek(0), !isBlank(next) { throw .protocol(unbalancedQuotes) }
          break word
        case UInt8(ascii: "'"):
          if byte == UInt8(ascii: "\\") && peek(0) == UInt8(ascii: "'") {
            position += 1
            words.append(UInt8(ascii: "'"))
          } else {
            words.append(byte)
          }
        default:
          guard byte == UInt8(ascii: "\\"), let escaped = peek(0) else {
            words.append(byte)
            continue
          }
          if escaped == UInt8(ascii: "x"), let high = peek(1).flatMap(hexValue),
            let low = peek(2).flatMap(hexValue)
          {
            words.append(high << 4 | low)
            position += 3
          } else {
            words.append(unescaped(escaped))
            position += 1
          }
        }
      }
      ranges.append(start..<words.count)
    }
  }

  /// What `\` followed by `byte` stands for inside double quotes (`\x` aside).
  private static func unescaped(_ byte: UInt8) -> UInt8 {
    switch byte {
    case UInt8(ascii: "n"): 10
    case UInt8(ascii: "r"): 13
    case UInt8(ascii: "t"): 9
    case UInt8(ascii: "b"): 8
    case UInt8(ascii: "a"): 7
    default: byte
    }
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// C's `isspace`: space, tab, LF, VT, FF, CR.
  @inline(__always)
  private static func isBlank(_ byte: UInt8) -> Bool { byte == 32 || (byte >= 9 && byte <= 13) }

  @inline(__always)
  private static func endsBareWord(_ byte: UInt8) -> Bool {
    byte == 32 || byte == 9 || byte == 13 || byte == 10
  }

  @inline(__always)
  private static func isQuote(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
  }
}
