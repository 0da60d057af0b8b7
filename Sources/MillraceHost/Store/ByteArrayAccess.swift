#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension Array where Element == UInt8 {
  /// Calls `body` with the array's bytes in place, passing on its typed error
  /// (`withUnsafeBytes` rethrows untyped).
  func withBytes<Value, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Value
  ) throws(Failure) -> Value {
    try withUnsafeBytes { bytes in Result { () throws(Failure) -> Value in try body(bytes) } }
      .get()
  }

  /// Whether the array holds exactly `bytes`, compared by `memcmp`.
  func holds(_ bytes: UnsafeRawBufferPointer) -> Bool {
    count == bytes.count
      && withUnsafeBytes { $0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, count) == 0 }
  }
}
