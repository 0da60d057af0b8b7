extension String {
  /// Calls `body` with the string's UTF-8 bytes, in place for a native string (a copy is made
  /// only for a bridged one): how text meets the byte-keyed lookups of `NameIndex`.
  func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    var text = self
    return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
  }
}
