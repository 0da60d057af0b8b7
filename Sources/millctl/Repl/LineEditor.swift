/// A small single-line editor for the interactive `repl`, in the spirit of linenoise: the
/// cursor keys, Home/End, ^A ^E ^B ^F, Backspace/Delete, ^U ^K ^W to erase, ^L to clear the
/// screen, Up/Down (^P/^N) through the history, ^C to abandon the line, ^D on an empty line
/// to end. A line longer than the terminal scrolls horizontally. Characters are assumed to be
/// one column wide.
struct LineEditor {
  /// How editing a line ended.
  enum Outcome: Equatable {
    /// Return was pressed.
    case line(String)
    /// ^C: the line was abandoned.
    case interrupted
    /// ^D on an empty line, or the end of input.
    case end
  }

  private let prompt: String
  private var text: [Character] = []
  private var cursor = 0
  /// The history with the line being edited last; edits to recalled lines are kept until
  /// the line is entered, as in readline.
  private var lines: [[Character]]
  private var index: Int

  /// Reads one line after showing `prompt`, with `history` (oldest first) under Up/Down.
  /// Returns nil when the terminal cannot be put in raw mode.
  static func read(prompt: String, history: [String]) -> Outcome? {
    RawTerminal.withRawMode {
      var editor = LineEditor(prompt: prompt, history: history)
      return editor.run()
    }
  }

  private init(prompt: String, history: [String]) {
    self.prompt = prompt
    lines = history.map(Array.init) + [[]]
    index = lines.count - 1
  }

  private mutating func run() -> Outcome {
    refresh()
    while let key = Key.read() {
      switch key {
      case .enter:
        Console.write("\n")
        return .line(String(text))
      case .control(3):
        Console.write("^C\n")
        return .interrupted
      case .control(4) where text.isEmpty:
        Console.write("\n")
        return .end
      case .control(12):
        Console.write("\u{1B}[H\u{1B}[2J")
      default:
        edit(key)
      }
      refresh()
    }
    return .end
  }

  /// Applies an editing key to the text and the cursor.
  private mutating func edit(_ key: Key) {
    switch key {
    case .character(let character):
      text.insert(character, at: cursor)
      cursor += 1
    case .backspace, .control(8):
      guard cursor > 0 else { return }
      cursor -= 1
      text.remove(at: cursor)
    case .delete, .control(4):
      if cursor < text.count { text.remove(at: cursor) }
    case .left, .control(2): cursor = max(0, cursor - 1)
    case .right, .control(6): cursor = min(text.count, cursor + 1)
    case .home, .control(1): cursor = 0
    case .end, .control(5): cursor = text.count
    case .control(11): text.removeSubrange(cursor...)
    case .control(21):
      text.removeSubrange(..<cursor)
      cursor = 0
    case .control(23):
      var start = cursor
      while start > 0 && text[start - 1] == " " { start -= 1 }
      while start > 0 && text[start - 1] != " " { start -= 1 }
      text.removeSubrange(start..<cursor)
      cursor = start
    case .up, .control(16): recall(index - 1)
    case .down, .control(14): recall(index + 1)
    default: return
    }
  }

  /// Shows history line `target` (keeping the edits of the line left).
  private mutating func recall(_ target: Int) {
    guard lines.indices.contains(target) else { return }
    lines[index] = text
    index = target
    text = lines[index]
    cursor = text.count
  }

  /// Redraws the prompt and the part of the text around the cursor that fits the width.
  private func refresh() {
    let room = max(1, RawTerminal.columns - prompt.count - 1)
    let start = max(0, cursor - room)
    let visible = text[start..<min(text.count, start + room)]
    Console.write(
      "\r" + prompt + String(visible) + "\u{1B}[0K\r\u{1B}[\(prompt.count + cursor - start)C")
  }
}
