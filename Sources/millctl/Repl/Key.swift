#if canImport(Glibc)
  import Glibc
#endif

/// One key press as the line editor sees it, decoded from the raw bytes of the terminal
/// (control characters, VT100 / xterm escape sequences, UTF-8).
enum Key: Equatable {
  /// A printable character.
  case character(Character)
  /// Return.
  case enter
  /// Backspace (DEL or ^H).
  case backspace
  /// The Delete key.
  case delete
  /// Arrow keys.
  case left, right, up, down
  /// Home / End.
  case home, end
  /// Another control character: ^A is 1, ^Z is 26.
  case control(UInt8)
  /// An escape sequence the editor does not know.
  case unknown

  /// Reads the next key from standard input; nil at end of input.
  static func read() -> Key? {
    guard let byte = readByte() else { return nil }
    switch byte {
    case 13, 10: return .enter
    case 127, 8: return .backspace
    case 27: return escapeSequence()
    case 0..<32: return .control(byte)
    default: return character(startingWith: byte)
    }
  }

  /// ESC [ X, ESC O X and ESC [ n ~.
  private static func escapeSequence() -> Key {
    guard let kind = readByte(), kind == UInt8(ascii: "[") || kind == UInt8(ascii: "O"),
      var final = readByte()
    else { return .unknown }
    var number = 0
    while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(final) {
      number = number * 10 + Int(final - UInt8(ascii: "0"))
      guard let next = readByte() else { return .unknown }
      final = next
    }
    switch (Character(Unicode.Scalar(final)), number) {
    case ("A", _): return .up
    case ("B", _): return .down
    case ("C", _): return .right
    case ("D", _): return .left
    case ("H", _), ("~", 1), ("~", 7): return .home
    case ("F", _), ("~", 4), ("~", 8): return .end
    case ("~", 3): return .delete
    default: return .unknown
    }
  }

  /// A UTF-8 character whose first byte is `lead`.
  private static func character(startingWith lead: UInt8) -> Key {
    let length =
      switch lead {
      case 0xF0...: 4
      case 0xE0...: 3
      case 0xC0...: 2
      default: 1
      }
    var bytes = [lead]
    while bytes.count < length, let next = readByte() { bytes.append(next) }
    return String(decoding: bytes, as: UTF8.self).first.map(Key.character) ?? .unknown
  }

  private static func readByte() -> UInt8? {
    var byte: UInt8 = 0
    while true {
      let count = Glibc.read(STDIN_FILENO, &byte, 1)
      if count == 1 { return byte }
      if count < 0 && errno == EINTR { continue }
      return nil
    }
  }
}
