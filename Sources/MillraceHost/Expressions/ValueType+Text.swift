extension ValueType {
  /// Reads `text`, a value's text form (int in decimal with an optional leading `-`, bool as
  /// `true` or `false`, a string as its bytes), into `destination`, which holds `words` words.
  ///
  /// On success every word of the value is written (a string's unused bytes zeroed) and nothing
  /// is allocated; on failure `destination` is unchanged and the error says why.
  func parse(
    _ text: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<UInt64>
  ) throws(ValueTextError) {
    switch self {
    case .int:
      destination.pointee = UInt64(bitPattern: try Self.parseInteger(text))
    case .bool:
      if Self.equals(text, "true") {
        destination.pointee = 1
      } else if Self.equals(text, "false") {
        destination.pointee = 0
      } else {
        throw ValueTextError(message: "expected true or false, got \(ValueTextError.quoted(text))")
      }
    case .string(let max):
      guard text.count <= max else {
        throw ValueTextError(message: "longer than \(max) bytes")
      }
      guard isValidUTF8(text) else { throw ValueTextError(message: "not valid UTF-8") }
      destination.update(repeating: 0, count: words)
      let bytes = UnsafeMutableRawPointer(destination)
      bytes.storeBytes(of: UInt8(text.count), as: UInt8.self)
      if let base = text.baseAddress, !text.isEmpty {
        (bytes + 1).copyMemory(from: base, byteCount: text.count)
      }
    }
  }

  /// Reads `text` as `parse(_:into:)` does, into new words.
  func parse(_ text: String) throws(ValueTextError) -> [UInt64] {
    var words = [UInt64](repeating: 0, count: self.words)
    var text = text
    let result: Result<Void, ValueTextError> = text.withUTF8 { bytes in
      words.withUnsafeMutableBufferPointer { destination in
        Result { () throws(ValueTextError) in
          try parse(UnsafeRawBufferPointer(bytes), into: destination.baseAddress!)
        }
      }
    }
    try result.get()
    return words
  }

  /// The text form of the value in `words` (see `parse(_:into:)`); a string's length is read as
  /// at most the type's `max`.
  func format(_ words: UnsafePointer<UInt64>) -> String {
    switch self {
    case .int:
      return String(Int64(bitPattern: words.pointee))
    case .bool:
      return words.pointee != 0 ? "true" : "false"
    case .string(let max):
      let bytes = UnsafeRawPointer(words)
      let length = Swift.min(Int(bytes.load(as: UInt8.self)), max)
      return String(
        decoding: UnsafeRawBufferPointer(start: bytes + 1, count: length), as: UTF8.self)
    }
  }

  /// `text` as a decimal Int64 with an optional leading `-`.
  private static func parseInteger(_ text: UnsafeRawBufferPointer) throws(ValueTextError) -> Int64 {
    let negative = text.first == UInt8(ascii: "-")
    let digits = negative ? text.count - 1 : text.count
    guard digits > 0,
      text[(negative ? 1 : 0)...].allSatisfy({ $0 &- UInt8(ascii: "0") < 10 })
    else {
      throw ValueTextError(message: "expected an integer, got \(ValueTextError.quoted(text))")
    }
    var value: Int64 = 0
    for byte in text[(negative ? 1 : 0)...] {
      let digit = Int64(byte &- UInt8(ascii: "0"))
      let (scaled, scaleOverflow) = value.multipliedReportingOverflow(by: 10)
      let (next, overflow) =
        negative
        ? scaled.subtractingReportingOverflow(digit) : scaled.addingReportingOverflow(digit)
      guard !scaleOverflow, !overflow else {
        throw ValueTextError(
          message: "integer out of the 64-bit range, got \(ValueTextError.quoted(text))")
      }
      value = next
    }
    return value
  }

  /// Whether `text` is exactly the ASCII `word`.
  private static func equals(_ text: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
    text.count == word.utf8CodeUnitCount
      && text.elementsEqual(
        UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
  }
}
