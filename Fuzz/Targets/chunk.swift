// libFuzzer target: ImageChunk.Reader, which reads every chunk of the snapshot's image at each
// start and each checkpoint that rewrites it (damage on disk can leave any bytes in a chunk's
// body), and ImageChunk.compare, which orders the image's names.
//
// Checked for every input (taken as a chunk's body): no crash, no trap, no memory error; the
// machines read, encoded again (`ImageChunk.append`), are exactly the bytes they were read
// from (the form has one encoding); reading stops at the end of the input, or reports damage
// (`isDamaged`) exactly when it stopped before it; the names read are in strictly increasing
// byte order; and `compare` agrees with a byte-by-byte comparison on every two consecutive
// names read and on the input's own halves, both ways round.

/// The sign of the byte order of `left` and `right`, as `Array.lexicographicallyPrecedes`
/// gives it: the oracle for `ImageChunk.compare`.
private func referenceOrder(_ left: [UInt8], _ right: [UInt8]) -> Int {
  left == right ? 0 : left.lexicographicallyPrecedes(right) ? -1 : 1
}

/// Checks `ImageChunk.compare` on `left` and `right`, both ways round.
private func checkCompare(_ left: [UInt8], _ right: [UInt8]) {
  let order = left.withUnsafeBytes { left in
    right.withUnsafeBytes { right in ImageChunk.compare(left, right) }
  }
  let reverse = left.withUnsafeBytes { left in
    right.withUnsafeBytes { right in ImageChunk.compare(right, left) }
  }
  let expected = referenceOrder(left, right)
  check(order.signum() == expected, "compare(\(left), \(right)) = \(order), not \(expected)")
  check(reverse.signum() == -expected, "compare(\(right), \(left)) = \(reverse)")
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunk(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let half = input.count / 2
  checkCompare(Array(input[..<half]), Array(input[half...]))
  input.withUnsafeBytes { bytes in
    var reader = ImageChunk.Reader(bytes)
    let again = ByteBuffer()
    var names: [[UInt8]] = []
    while let entry = reader.next() {
      ImageChunk.append(entry, to: again)
      names.append(Array(entry.name))
    }
    let read = again.bytes
    check(read == Array(input.prefix(read.count)), "re-encoding differs from the bytes read")
    check(
      reader.isDamaged == (read.count < input.count),
      "read \(read.count) of \(input.count) bytes, damaged: \(reader.isDamaged)")
    for index in names.indices.dropFirst() {
      check(referenceOrder(names[index - 1], names[index]) < 0, "names out of order")
      checkCompare(names[index - 1], names[index])
    }
  }
  return 0
}
