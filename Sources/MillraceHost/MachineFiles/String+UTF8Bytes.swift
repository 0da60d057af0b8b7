extension String {
  /// Calls `body` with the string's UTF-8 bytes, in place for a native string (a copy is made
  /// only for a bridged one): how text meets the byte-keyed lookups of `NameIndex`.
  func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    var text = self
    return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
  }
}

extension String {
  /// Calls `body` with the UTF-8 bytes of each of `strings`, in order (copied into one
  /// buffer that lives for the call).
  static func withUTF8Buffers<Result>(
    _ strings: [String], _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Result
  ) -> Result {
    let bytes = strings.flatMap(\.utf8)
    return bytes.withUnsafeBytes { all in
      var start = 0
      let parts = strings.map { string in
        let count = string.utf8.count
        defer { start += count }
        return UnsafeRawBufferPointer(rebasing: all[start..<(start + count)])
      }
      return parts.withUnsafeBufferPointer(body)
    }
  }
}
