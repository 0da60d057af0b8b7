/// A Redis glob pattern, as `SCAN … MATCH`, `KEYS` and `PSUBSCRIBE` take it: made once from the
/// pattern's bytes, then matched against names and channels as byte strings.
///
/// Guarantees:
/// - `matches` answers what Redis 7's `stringmatchlen` (util.c, case-sensitive) answers for the
///   same bytes: `*` matches any run of bytes, `?` any one byte, `[abc]` one of the listed
///   bytes, `[^abc]` one byte not listed, `[a-z]` one byte in the range (a reversed range such as
///   `[z-a]` is the same range), and `\` makes the byte after it literal, inside brackets too.
///   Redis's readings of malformed patterns are kept: an unclosed bracket ends with the pattern
///   (`[^` matches any one byte, `[` none), a trailing `\` is a literal backslash, and in `[a-]`
///   the closing bracket is the end of the range `a-]`, so the bracket goes on after it.
/// - Range bounds compare bytes as C's signed `char` does on x86-64, where Redis runs and where
///   these answers were checked: bytes from 0x80 sort below 0x00. (On arm64 Linux `char` is
///   unsigned and Redis orders them the other way; ranges within ASCII are the same on both.)
/// - The empty name is matched by the empty pattern only; `*` matches every other name. Redis's
///   `SCAN` and `KEYS` do not match at all when the pattern is `*` alone, so they also list an
///   empty key: `isMatchAll` tells the caller when to do the same.
/// - Like Redis, a match fails once it reaches the 1001st group of stars of the pattern, unless
///   that group ends the pattern.
/// - A match costs at most (name length + star groups + 1) × pattern length steps, with no
///   recursion and no allocation (for contiguous bytes): as in Redis (`skipLongerMatches`), only the last `*` reached is
///   ever given a longer part of the name, so a pattern like `a*a*a*a*b` cannot backtrack
///   exponentially. A pattern without `*?[\` is compared for equality, and a pattern that is a
///   literal prefix followed by stars only (`door.*`, `*`) compares the prefix only.
/// - Equality and hashing are those of the pattern's bytes.
struct GlobPattern: Hashable, Sendable {
  /// The pattern's bytes, as given.
  let bytes: [UInt8]
  private let shape: Shape

  /// How `matches` goes about it, decided once from the pattern.
  private enum Shape: Hashable, Sendable {
    /// No special byte: the name must equal the pattern.
    case literal
    /// Special bytes are stars only, and all at the end, after `length` literal bytes: the name
    /// must start with those bytes and not be empty.
    case prefix(length: Int)
    /// Anything else: the general matcher.
    case general
  }

  /// The pattern made of `bytes` (UTF-8 or any other bytes: they are matched as they are).
  init(_ bytes: some Collection<UInt8>) {
    self.bytes = Array(bytes)
    shape = Self.shape(of: self.bytes)
  }

  /// The pattern made of the UTF-8 bytes of `pattern`.
  init(_ pattern: String) {
    self.init(pattern.utf8)
  }

  /// Whether the pattern is `*` alone: the pattern Redis's `SCAN` and `KEYS` treat as no
  /// pattern, listing every key including the empty one (which `matches` rejects).
  var isMatchAll: Bool { bytes.count == 1 && bytes[0] == Byte.star }

  /// Whether `name`, taken as bytes, matches the pattern (as `stringmatchlen` decides).
  func matches(_ name: UnsafeRawBufferPointer) -> Bool {
    var steps = 0
    return matches(name, steps: &steps)
  }

  /// Whether `name`, taken as bytes, matches the pattern (as `stringmatchlen` decides); a
  /// collection without contiguous storage is copied into an array first.
  func matches(_ name: some Collection<UInt8>) -> Bool {
    let answer = name.withContiguousStorageIfAvailable { matches(UnsafeRawBufferPointer($0)) }
    return answer ?? Array(name).withUnsafeBytes { matches($0) }
  }

  /// Whether the UTF-8 bytes of `name` match the pattern (as `stringmatchlen` decides).
  func matches(_ name: String) -> Bool {
    name.withUTF8Bytes { matches($0) }
  }

  /// Whether `name` matches the pattern; adds to `steps` one per pattern element the general
  /// matcher compares, and 1 for a fast-path comparison: a measure of the work done.
  func matches(_ name: UnsafeRawBufferPointer, steps: inout Int) -> Bool {
    switch shape {
    case .literal:
      steps += 1
      return name.count == bytes.count && Self.hasPrefix(name, bytes[...])
    case .prefix(let length):
      steps += 1
      return name.count >= max(length, 1) && Self.hasPrefix(name, bytes[..<length])
    case .general:
      return bytes.withUnsafeBytes { Self.match($0, name, steps: &steps) }
    }
  }

  /// Equal patterns have equal bytes.
  static func == (left: GlobPattern, right: GlobPattern) -> Bool { left.bytes == right.bytes }

  /// Hashes the pattern's bytes.
  func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

  // MARK: Matching

  /// The bytes with a meaning in patterns.
  private enum Byte {
    static let star = UInt8(ascii: "*")
    static let question = UInt8(ascii: "?")
    static let open = UInt8(ascii: "[")
    static let close = UInt8(ascii: "]")
    static let caret = UInt8(ascii: "^")
    static let dash = UInt8(ascii: "-")
    static let backslash = UInt8(ascii: "\\")
  }

  /// The number of star groups a match may pass before the one that ends it: Redis's nesting
  /// limit (its matcher recurses once per group).
  static let starGroupLimit = 1000

  private static func shape(of pattern: [UInt8]) -> Shape {
    let special = [Byte.star, Byte.question, Byte.open, Byte.backslash]
    guard let first = pattern.firstIndex(where: special.contains) else { return .literal }
    if pattern[first...].allSatisfy({ $0 == Byte.star }) { return .prefix(length: first) }
    return .general
  }

  /// Whether `name` starts with `prefix`; `name` must be at least as long.
  private static func hasPrefix(_ name: UnsafeRawBufferPointer, _ prefix: ArraySlice<UInt8>)
    -> Bool
  {
    zip(name, prefix).allSatisfy { $0 == $1 }
  }

  /// `stringmatchlen` without recursion. Where Redis recurses at a star to match the rest of the
  /// pattern from each later position of the name, this remembers the last star reached and,
  /// when the rest fails, moves that star's position on by one byte. That is all Redis does too:
  /// once the rest reaches a further star, the outcome of that star is final (a match, or no
  /// position works and `skipLongerMatches` ends the whole match), so earlier stars are never
  /// retried. Each attempt costs at most the pattern's length, and there are at most as many
  /// attempts as bytes in the name plus star groups in the pattern.
  private static func match(
    _ pattern: UnsafeRawBufferPointer, _ name: UnsafeRawBufferPointer, steps: inout Int
  ) -> Bool {
    let patternEnd = pattern.count
    let nameEnd = name.count
    var p = 0
    var n = 0
    // The last star reached: where the pattern goes on after it, the name position it is
    // trying, and its ordinal among the star groups.
    var star: (pattern: Int, name: Int, group: Int)?
    while true {
      var failed = false
      attempt: while p < patternEnd && n < nameEnd {
        steps += 1
        switch pattern[p] {
        case Byte.star:
          while p + 1 < patternEnd && pattern[p + 1] == Byte.star { p += 1 }
          if p + 1 == patternEnd { return true }
          let group = (star?.group ?? 0) + 1
          if group > starGroupLimit { return false }
          p += 1
          star = (p, n, group)
          continue attempt
        case Byte.question:
          break
        case Byte.open:
          p += 1
          guard bracketMatches(pattern, &p, name[n]) else {
            failed = true
            break attempt
          }
        case Byte.backslash:
          if p + 1 < patternEnd { p += 1 }
          guard pattern[p] == name[n] else {
            failed = true
            break attempt
          }
        case let literal:
          guard literal == name[n] else {
            failed = true
            break attempt
          }
        }
        p += 1
        n += 1
        if n == nameEnd {
          while p < patternEnd && pattern[p] == Byte.star { p += 1 }
        }
      }
      if !failed && p == patternEnd && n == nameEnd { return true }
      // The rest of the pattern failed from here: the last star takes one more byte, if the
      // name has one left for the rest to start at.
      guard let last = star, last.name + 1 < nameEnd else { return false }
      star = (last.pattern, last.name + 1, last.group)
      p = last.pattern
      n = last.name + 1
    }
  }

  /// Whether `byte` is in the bracket whose contents start at `p` (after the `[`); leaves `p`
  /// on the bracket's `]`, or on its last byte when the pattern ends before a `]`.
  private static func bracketMatches(
    _ pattern: UnsafeRawBufferPointer, _ p: inout Int, _ byte: UInt8
  ) -> Bool {
    let end = pattern.count
    let negated = p < end && pattern[p] == Byte.caret
    if negated { p += 1 }
    var found = false
    while true {
      if p == end {
        p -= 1
        break
      }
      if pattern[p] == Byte.backslash && end - p >= 2 {
        p += 1
        if pattern[p] == byte { found = true }
      } else if pattern[p] == Byte.close {
        break
      } else if end - p >= 3 && pattern[p + 1] == Byte.dash {
        let bounds = (Int8(bitPattern: pattern[p]), Int8(bitPattern: pattern[p + 2]))
        let value = Int8(bitPattern: byte)
        if min(bounds.0, bounds.1) <= value && value <= max(bounds.0, bounds.1) { found = true }
        p += 2
      } else if pattern[p] == byte {
        found = true
      }
      p += 1
    }
    return found != negated
  }
}
