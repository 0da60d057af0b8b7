/// A reply as a client reads it: any RESP2 or RESP3 value.
///
/// Text is decoded as UTF-8 (invalid sequences become U+FFFD). Equality is structural, with
/// `Double`'s own: `.double(.nan)` equals nothing, itself included.
public indirect enum RESPValue: Hashable, Sendable {
  /// `+text`
  case simple(String)
  /// `-text`, or RESP3's `!length` blob error: the error's code, its first word (`ERR`,
  /// `NOMACHINE`...), then a message (see `errorCode`).
  case error(String)
  /// `:n`
  case integer(Int)
  /// `$n` bytes, as text (nil for RESP2's null bulk string, `$-1`)
  case bulk(String?)
  /// `*n` values (nil for RESP2's null array, `*-1`)
  case array([RESPValue]?)
  /// RESP3's `_` null.
  case null
  /// RESP3's `,` double (`inf`, `-inf` and `nan` included).
  case double(Double)
  /// RESP3's `#t` or `#f`.
  case boolean(Bool)
  /// RESP3's `(` big number: its decimal digits, with a `-` if negative.
  case bigNumber(String)
  /// RESP3's `=` verbatim string: a three-letter format (`txt`, `mkd`) and the text.
  case verbatim(format: String, text: String)
  /// RESP3's `%` map: keys and values in the order received.
  case map([Pair])
  /// RESP3's `~` set, in the order received.
  case set([RESPValue])
  /// RESP3's `>` push frame: data the server sends unasked, such as a pub/sub message
  /// (`["message", channel, text]`).
  case push([RESPValue])

  /// One key and its value in a `.map`.
  public struct Pair: Hashable, Sendable {
    /// The key.
    public var key: RESPValue
    /// The value.
    public var value: RESPValue

    /// A pair.
    public init(_ key: RESPValue, _ value: RESPValue) {
      self.key = key
      self.value = value
    }
  }

  /// The code of an error reply, its first word: `NOMACHINE` for `-NOMACHINE no machine x`,
  /// `ERR` for `-ERR wrong number of arguments for 'send' command`. Nil for any other value.
  public var errorCode: String? {
    guard case .error(let text) = self else { return nil }
    return String(text.prefix { $0 != " " })
  }

  /// The text of a string value: simple, bulk (nil for the null bulk string) or verbatim.
  public var string: String? {
    switch self {
    case .simple(let text), .bulk(let text?), .verbatim(_, let text): text
    default: nil
    }
  }

  /// The elements of an array, set or push frame; nil for any other value (the null array
  /// included).
  public var elements: [RESPValue]? {
    switch self {
    case .array(let values?), .set(let values), .push(let values): values
    default: nil
    }
  }

  /// The strings among the elements of an array, set or push frame (see `string`); other
  /// elements are left out.
  public var strings: [String]? {
    elements?.compactMap(\.string)
  }

  /// The value of the first key that is the string `key`, in a map, or in an array of keys and
  /// values (what RESP2 makes of a map, as in `HELLO 2`'s reply); nil when there is none.
  public subscript(key: String) -> RESPValue? {
    switch self {
    case .map(let pairs):
      return pairs.first { $0.key.string == key }?.value
    case .array(let values?) where values.count % 2 == 0:
      return stride(from: 0, to: values.count, by: 2).first { values[$0].string == key }
        .map { values[$0 + 1] }
    default:
      return nil
    }
  }
}
