/// Splits a `repl` line into request words, like a shell but simpler: blanks separate words;
/// `"..."` keeps blanks and reads the escapes `\"`, `\\`, `\n`, `\r` and `\t`; `'...'` keeps
/// everything literally but `\'`. Quoted and bare parts next to each other form one word, and
/// `""` is an empty word.
enum WordSplitter {
  /// A quote was opened and never closed.
  struct UnbalancedQuotes: Error {}

  /// The words of `line`.
  static func split(_ line: String) throws(UnbalancedQuotes) -> [String] {
    var words: [String] = []
    var word: String? = nil
    var characters = line.makeIterator()
    while let character = characters.next() {
      switch character {
      case " ", "\t":
        if let finished = word { words.append(finished) }
        word = nil
      case "\"", "'":
        word = (word ?? "") + (try quoted(until: character, from: &characters))
      default:
        word = (word ?? "") + String(character)
      }
    }
    if let word { words.append(word) }
    return words
  }

  /// The text up to the closing `quote`, with its escapes applied.
  private static func quoted(
    until quote: Character, from characters: inout String.Iterator
  ) throws(UnbalancedQuotes) -> String {
    var text = ""
    while let character = characters.next() {
      if character == quote { return text }
      guard character == "\\", let escaped = characters.next() else {
        text.append(character)
        continue
      }
      text += quote == "'" ? singleQuoted(escaped) : doubleQuoted(escaped)
    }
    throw UnbalancedQuotes()
  }

  private static func doubleQuoted(_ escaped: Character) -> String {
    switch escaped {
    case "n": return "\n"
    case "r": return "\r"
    case "t": return "\t"
    case "\"", "\\": return String(escaped)
    default: return "\\" + String(escaped)
    }
  }

  private static func singleQuoted(_ escaped: Character) -> String {
    escaped == "'" ? "'" : "\\" + String(escaped)
  }
}
