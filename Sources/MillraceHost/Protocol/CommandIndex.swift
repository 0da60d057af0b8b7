import MillraceWire

/// The commands of the control protocol, found by a request's first word (ASCII,
/// case-insensitive) without building a string: the word's length and first letter pick a
/// bucket of a few candidates, each its name's 16 bytes as two words and its index, together
/// in one table, so that a lookup reads one or two lines of it (a table of arrays of arrays
/// read five, which a million machines' traffic keeps out of the caches).
struct CommandIndex {
  /// Every command, in `COMMAND` order.
  let commands: [CommandSpec]
  /// What dispatch reads of each command, by index: small, so a request copies no strings
  /// or arrays of the full specification.
  let entries: [Entry]

  /// What dispatch needs of a command.
  struct Entry {
    var arity: Int
    var flags: CommandFlags
    var hasSubcommands: Bool
    var run: CommandSpec.Handler
  }
  /// Where each command's keys (machine names) are, by index: read by a cluster node's
  /// routing only.
  let keys: [KeyPositions?]
  /// Candidates by `bucket(length:first:)`, `perBucket` a bucket, each three words: its name's
  /// lower-case bytes, zero-padded to 16, as two little-endian words, and its index + 1 (0:
  /// no candidate).
  private let table: [UInt64]
  private let perBucket: Int

  init(_ commands: [CommandSpec]) {
    self.commands = commands
    entries = commands.map {
      Entry(arity: $0.arity, flags: $0.flags, hasSubcommands: !$0.subcommands.isEmpty, run: $0.run)
    }
    keys = commands.map(\.keys)
    let words = commands.map { Array($0.name.utf8) }
    var buckets = [[Int]](repeating: [], count: 16 * 32)
    for (index, word) in words.enumerated() {
      precondition(word.count < 16, "command names are shorter than 16 bytes")
      buckets[Self.bucket(length: word.count, first: word[0])].append(index)
    }
    let perBucket = buckets.map(\.count).max() ?? 1
    var table = [UInt64](repeating: 0, count: buckets.count * perBucket * 3)
    for (bucket, candidates) in buckets.enumerated() {
      for (place, index) in candidates.enumerated() {
        let at = (bucket * perBucket + place) * 3
        let (low, high) = words[index].withUnsafeBytes { Self.words(of: $0) }
        (table[at], table[at + 1], table[at + 2]) = (low, high, UInt64(index + 1))
      }
    }
    (self.table, self.perBucket) = (table, perBucket)
  }

  /// `word` (1 to 15 bytes) folded to lower case (ASCII letters), zero-padded to 16 bytes, as
  /// two little-endian words. Reads only `word`'s bytes: two loads that may overlap, not one
  /// byte at a time.
  @inline(__always)
  static func words(of word: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
    let count = word.count
    assert(count > 0 && count < 16, "a command word has 1 to 15 bytes")
    let base = word.baseAddress.unsafelyUnwrapped
    func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> UInt64 {
      UInt64(T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self)))
    }
    var low: UInt64
    var high: UInt64 = 0
    if count >= 8 {
      low = load(UInt64.self, at: 0)
      // The last 8 bytes, shifted so that those already in `low` fall off (all 8 of 8).
      high = load(UInt64.self, at: count &- 8) >> UInt64(8 &* (16 &- count))
    } else if count >= 4 {
      // Bytes 0...3 and count-4...count-1; where they overlap they are the same bytes.
      low =
        load(UInt32.self, at: 0) | load(UInt32.self, at: count &- 4) << UInt64(8 &* (count &- 4))
    } else {
      let middle = count >> 1
      low =
        load(UInt8.self, at: 0) | load(UInt8.self, at: middle) << UInt64(8 &* middle)
        | load(UInt8.self, at: count &- 1) << UInt64(8 &* (count &- 1))
    }
    return (lowercased(low), lowercased(high))
  }

  /// `bytes` with each of its eight bytes that is an ASCII capital letter made lower case, all
  /// at once: no byte's sum carries into the next.
  @inline(__always)
  static func lowercased(_ bytes: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let sevenBits = bytes & (0x7F &* ones)
    let fromA = sevenBits &+ (0x80 &- 0x41) &* ones  // high bit set where the byte is >= "A"
    let pastZ = sevenBits &+ (0x80 &- 0x5B) &* ones  // high bit set where the byte is > "Z"
    let capitals = fromA & ~pastZ & ~bytes & (0x80 &* ones)
    return bytes | capitals >> 2
  }

  private static func bucket(length: Int, first: UInt8) -> Int {
    (length << 5) | Int((first | 0x20) & 31)
  }

  /// The index in `commands` of the command `frame` names; nil for an unknown word.
  func index(of frame: Frame) -> Int? {
    frame.withUnsafeBytes(of: 0) { word in
      guard word.count > 0 && word.count < 16 else { return nil }
      let (low, high) = Self.words(of: word)
      let first = Self.bucket(length: word.count, first: word[0]) &* perBucket &* 3
      return table.withUnsafeBufferPointer { table in
        for at in stride(from: first, to: first &+ perBucket &* 3, by: 3)
        where table[at] == low && table[at &+ 1] == high && table[at &+ 2] != 0 {
          return Int(table[at &+ 2]) &- 1
        }
        return nil
      }
    }
  }

  /// The command named `name` (lower-case, `container|sub` for a subcommand).
  func command(named name: String) -> CommandSpec? {
    let parts = name.lowercased().split(separator: "|", maxSplits: 1)
    guard let top = commands.first(where: { $0.name == parts.first.map(String.init) }) else {
      return nil
    }
    guard parts.count == 2 else { return top }
    return top.subcommands.first { $0.name == name.lowercased() }
  }

  /// The subcommand of `container` that word 1 of `frame` names; nil when there is none.
  static func subcommand(of container: CommandSpec, in frame: Frame) -> CommandSpec? {
    subcommandIndex(of: container, in: frame).map { container.subcommands[$0] }
  }

  /// The index in `container.subcommands` of the one word 1 of `frame` names.
  static func subcommandIndex(of container: CommandSpec, in frame: Frame) -> Int? {
    guard frame.count > 1 else { return nil }
    let prefix = container.name.utf8.count + 1
    return frame.withUnsafeBytes(of: 1) { word in
      container.subcommands.firstIndex { sub in
        equalIgnoringCase(Array(sub.name.utf8.dropFirst(prefix)), word)
      }
    }
  }

  /// The key positions of a command by `index` and subcommand index (-1 for none).
  func keys(index: Int, sub: Int) -> KeyPositions? {
    sub < 0 ? keys[index] : commands[index].subcommands[sub].keys
  }

  /// The key positions of the command `frame` holds; nil when it names no machine or is not
  /// a command.
  func keys(of frame: Frame) -> KeyPositions? {
    guard let index = index(of: frame) else { return nil }
    guard entries[index].hasSubcommands else { return keys[index] }
    guard frame.count > 1, let sub = Self.subcommandIndex(of: commands[index], in: frame) else {
      return nil
    }
    return keys(index: index, sub: sub)
  }

  /// The name of a command by `index` and subcommand index (-1 for none).
  func name(index: Int, sub: Int) -> String {
    sub < 0 ? commands[index].name : commands[index].subcommands[sub].name
  }

  /// Whether `word` is `lowercased` in any case (ASCII).
  static func equalIgnoringCase(_ lowercased: [UInt8], _ word: UnsafeRawBufferPointer) -> Bool {
    guard lowercased.count == word.count else { return false }
    for index in 0..<word.count {
      let byte = word[index]
      let folded = byte >= 65 && byte <= 90 ? byte | 0x20 : byte
      if folded != lowercased[index] { return false }
    }
    return true
  }
}
