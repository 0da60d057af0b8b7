extension Array where Element == UInt8 {
  /// Calls `body` with the array's bytes in place, passing on its typed error
  /// (`withUnsafeBytes` rethrows untyped).
  func withBytes<Value, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Value
  ) throws(Failure) -> Value {
    try withUnsafeBytes { bytes in Result { () throws(Failure) -> Value in try body(bytes) } }
      .get()
  }
}
