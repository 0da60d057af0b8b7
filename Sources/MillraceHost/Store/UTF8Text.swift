/// The store's two dealings with UTF-8 bytes that need no `String`: checking bytes read from
/// disk, and lending a string's bytes to a writer.
enum UTF8Text {
  /// Whether `bytes` are well-formed UTF-8 (what `String(validating:)` accepts), without
  /// making a string.
  static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    if !bytes.contains(where: { $0 >= 0x80 }) { return true }
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput: return true
      case .error: return false
      }
    }
  }

  /// Calls `body` with the UTF-8 bytes of `text`: in place for a native string, copied first
  /// for another (bridged) one.
  static func withBytes<Result>(
    of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result
  ) -> Result {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = text
    return copy.withUTF8(body)
  }
}
